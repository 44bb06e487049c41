/**
 * The dashboard's keyboard shortcuts as pure policy (client-safe: no DOM, no I/O):
 * which key, or `g` then a letter, means what, and when a key press is not a shortcut
 * at all. `components/keyboard/keyboard-shortcuts.tsx` feeds it key presses with "now",
 * and `components/keyboard/row-shortcuts.ts` carries out a results table's row commands.
 */

/**
 * How long `g` waits for its letter. Long enough for a deliberate second key, short
 * enough that a stray `g` does not turn the next `j` into a navigation much later.
 */
export const SECTION_PREFIX_TIMEOUT_MS = 1_500;

/** `g` then a letter: the sections of the nav (components/layout/nav-links.tsx) but Webhooks, which has no letter. */
export const SECTION_KEYS = [
  { key: 'o', href: '/', label: 'Overview' },
  { key: 'q', href: '/queues', label: 'Queues' },
  { key: 'w', href: '/workers', label: 'Workers' },
  { key: 'd', href: '/dead-letters', label: 'Dead letters' },
  { key: 's', href: '/schedules', label: 'Schedules' },
  { key: 'h', href: '/health', label: 'Health' },
  { key: 'a', href: '/audit', label: 'Audit' },
] as const;

/** What a row of a results table can be asked to do. */
export type RowCommand = 'next' | 'prev' | 'open' | 'act';

export type ShortcutCommand = { kind: 'search' } | { kind: 'help' } | { kind: 'go'; href: string } | { kind: 'row'; command: RowCommand };

/** A `g` waiting for its letter since `at` (ms), or nothing pending. */
export interface SequenceState {
  prefix: 'g' | null;
  at: number;
}

export const IDLE: SequenceState = { prefix: null, at: 0 };

/** The parts of a KeyboardEvent the policy reads. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** An IME composition is under way: the key is part of the text being typed. */
  isComposing?: boolean;
}

/** Where the key press happened. */
export interface KeyContext {
  /** The focus is in a field that takes text (see `isTypingTarget`). */
  typing: boolean;
  /** A modal dialog is open: its own keys (Tab, Escape, Enter) belong to it. */
  modalOpen: boolean;
  /** The focus is on a results-table row itself (Enter opens it). */
  onRow: boolean;
}

/** The element shape `isTypingTarget` reads (an Element satisfies it). */
export interface TargetLike {
  tagName: string;
  isContentEditable?: boolean;
  type?: string;
}

/** Input types that take no text: a letter pressed on them is still a shortcut. */
const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'image']);

/** Whether a key pressed on `target` is typing: text inputs, textareas, selects and contenteditable. */
export function isTypingTarget(target: TargetLike | null | undefined): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !NON_TEXT_INPUTS.has((target.type ?? 'text').toLowerCase());
  return false;
}

/** Keys that only modify the next one (Shift comes before `?`): they leave a pending `g` pending. */
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'CapsLock', 'AltGraph']);

/**
 * One key press through the shortcut sequence: the state to keep and the command, if
 * any. Nothing fires with Ctrl, Meta or Alt held, while typing, or with a modal open;
 * `g` waits `SECTION_PREFIX_TIMEOUT_MS` for its letter, and a letter it does not know
 * ends the sequence without a command.
 */
export function readShortcut(
  state: SequenceState,
  press: KeyPress,
  context: KeyContext,
  nowMs: number,
): { state: SequenceState; command: ShortcutCommand | null } {
  if (MODIFIER_KEYS.has(press.key)) return { state, command: null };
  if (press.ctrlKey || press.metaKey || press.altKey || press.isComposing || context.typing || context.modalOpen) {
    return { state: IDLE, command: null };
  }
  if (state.prefix === 'g' && nowMs - state.at <= SECTION_PREFIX_TIMEOUT_MS) {
    const section = SECTION_KEYS.find((s) => s.key === press.key);
    return { state: IDLE, command: section ? { kind: 'go', href: section.href } : null };
  }
  switch (press.key) {
    case 'g':
      return { state: { prefix: 'g', at: nowMs }, command: null };
    case '/':
      return { state: IDLE, command: { kind: 'search' } };
    case '?':
      return { state: IDLE, command: { kind: 'help' } };
    case 'j':
      return { state: IDLE, command: { kind: 'row', command: 'next' } };
    case 'k':
      return { state: IDLE, command: { kind: 'row', command: 'prev' } };
    case 'r':
      return { state: IDLE, command: { kind: 'row', command: 'act' } };
    case 'Enter':
      return { state: IDLE, command: context.onRow ? { kind: 'row', command: 'open' } : null };
    default:
      return { state: IDLE, command: null };
  }
}

/**
 * The row to focus after `j` (next) or `k` (prev) from row `current` (-1: none) of
 * `count`: from none, `j` takes the first and `k` the last; the ends do not wrap.
 * -1 when there are no rows.
 */
export function nextRowIndex(current: number, count: number, move: 'next' | 'prev'): number {
  if (count <= 0) return -1;
  if (current < 0 || current >= count) return move === 'next' ? 0 : count - 1;
  return move === 'next' ? Math.min(current + 1, count - 1) : Math.max(current - 1, 0);
}

/** One line of the `?` dialog (and of docs/dashboard.md): the keys pressed in turn, and what they do. */
export interface ShortcutHelp {
  keys: readonly string[];
  what: string;
  /** Shown to operators and admins only (viewers have nothing to retry or replay). */
  operatorOnly?: boolean;
}

export const SHORTCUT_HELP: readonly ShortcutHelp[] = [
  { keys: ['/'], what: "Focus the page's search or filter field" },
  ...SECTION_KEYS.map((s) => ({ keys: ['g', s.key], what: `Go to ${s.label}` })),
  { keys: ['j'], what: 'Next row of the results table' },
  { keys: ['k'], what: 'Previous row of the results table' },
  { keys: ['Enter'], what: 'Open the focused row' },
  { keys: ['r'], what: 'Retry the focused failed job, or replay the focused dead letter (asks first)', operatorOnly: true },
  { keys: ['?'], what: 'Show these shortcuts' },
];
