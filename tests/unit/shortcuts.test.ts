import { describe, expect, it } from 'vitest';
import {
  IDLE,
  isTypingTarget,
  type KeyContext,
  type KeyPress,
  nextRowIndex,
  readShortcut,
  SECTION_KEYS,
  SECTION_PREFIX_TIMEOUT_MS,
  SHORTCUT_HELP,
  type SequenceState,
} from '@/dashboard/client/shortcuts';

const free: KeyContext = { typing: false, modalOpen: false, onRow: false };
const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });

/** Runs `keys` through the policy, one press every `stepMs`, and returns every command. */
function run(keys: string[], stepMs = 100, context: KeyContext = free) {
  let state: SequenceState = IDLE;
  const commands = [];
  let now = 10_000;
  for (const key of keys) {
    const out = readShortcut(state, press(key), context, now);
    state = out.state;
    if (out.command) commands.push(out.command);
    now += stepMs;
  }
  return { state, commands };
}

describe('readShortcut', () => {
  it('maps the single keys', () => {
    expect(run(['/']).commands).toEqual([{ kind: 'search' }]);
    expect(run(['?']).commands).toEqual([{ kind: 'help' }]);
    expect(run(['j', 'k', 'r']).commands).toEqual([
      { kind: 'row', command: 'next' },
      { kind: 'row', command: 'prev' },
      { kind: 'row', command: 'act' },
    ]);
    expect(run(['x', 'J', 'R']).commands).toEqual([]);
  });

  it('takes `g` then a letter to each section of the nav that has one', () => {
    for (const s of SECTION_KEYS) expect(run(['g', s.key]).commands).toEqual([{ kind: 'go', href: s.href }]);
    expect(run(['g', 'q']).state).toEqual(IDLE);
    expect(run(['g', 'd']).commands).toEqual([{ kind: 'go', href: '/dead-letters' }]);
  });

  it('keeps `g` pending until its letter, through a lone Shift', () => {
    const g = run(['g']);
    expect(g.commands).toEqual([]);
    expect(g.state.prefix).toBe('g');
    expect(run(['g', 'Shift', 'a']).commands).toEqual([{ kind: 'go', href: '/audit' }]);
  });

  it('lets `g` lapse after the timeout: the next key counts on its own', () => {
    expect(run(['g', 'q'], SECTION_PREFIX_TIMEOUT_MS + 1).commands).toEqual([]);
    expect(run(['g', 'j'], SECTION_PREFIX_TIMEOUT_MS + 1).commands).toEqual([{ kind: 'row', command: 'next' }]);
    expect(run(['g', 'q'], SECTION_PREFIX_TIMEOUT_MS).commands).toEqual([{ kind: 'go', href: '/queues' }]);
  });

  it('ends the sequence on a letter `g` does not know, without a command', () => {
    expect(run(['g', 'x', 'q']).commands).toEqual([]);
    expect(run(['g', 'j']).commands).toEqual([]);
    expect(run(['g', 'g', 'q']).commands).toEqual([]);
  });

  it('fires nothing with Ctrl, Meta or Alt held, and drops a pending `g`', () => {
    for (const mod of ['ctrlKey', 'metaKey', 'altKey'] as const) {
      expect(readShortcut(IDLE, press('/', { [mod]: true }), free, 0).command).toBeNull();
      const afterG = readShortcut({ prefix: 'g', at: 0 }, press('q', { [mod]: true }), free, 10);
      expect(afterG).toEqual({ state: IDLE, command: null });
    }
  });

  it('fires nothing while typing, composing or with a modal open', () => {
    expect(run(['/', 'j', 'g', 'q', '?'], 100, { ...free, typing: true }).commands).toEqual([]);
    expect(run(['?', 'r'], 100, { ...free, modalOpen: true }).commands).toEqual([]);
    expect(readShortcut(IDLE, press('j', { isComposing: true }), free, 0).command).toBeNull();
  });

  it('opens with Enter only on a focused row (a link or button keeps its own Enter)', () => {
    expect(readShortcut(IDLE, press('Enter'), free, 0).command).toBeNull();
    expect(readShortcut(IDLE, press('Enter'), { ...free, onRow: true }, 0).command).toEqual({ kind: 'row', command: 'open' });
  });
});

describe('isTypingTarget', () => {
  it('counts text fields, textareas, selects and contenteditable as typing', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT' })).toBe(true);
    expect(isTypingTarget({ tagName: 'input', type: 'number' })).toBe(true);
    expect(isTypingTarget({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTypingTarget({ tagName: 'SELECT' })).toBe(true);
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true })).toBe(true);
  });

  it('leaves checkboxes, buttons, links, rows and the page to the shortcuts', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'radio' })).toBe(false);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'submit' })).toBe(false);
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false);
    expect(isTypingTarget({ tagName: 'A' })).toBe(false);
    expect(isTypingTarget({ tagName: 'TR', isContentEditable: false })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe('nextRowIndex', () => {
  it('starts at the first row with j and the last with k', () => {
    expect(nextRowIndex(-1, 5, 'next')).toBe(0);
    expect(nextRowIndex(-1, 5, 'prev')).toBe(4);
  });

  it('moves one row and stops at the ends', () => {
    expect(nextRowIndex(0, 5, 'next')).toBe(1);
    expect(nextRowIndex(3, 5, 'prev')).toBe(2);
    expect(nextRowIndex(4, 5, 'next')).toBe(4);
    expect(nextRowIndex(0, 5, 'prev')).toBe(0);
  });

  it('has nowhere to go without rows, and restarts from a row that is gone', () => {
    expect(nextRowIndex(-1, 0, 'next')).toBe(-1);
    expect(nextRowIndex(7, 3, 'next')).toBe(0);
  });
});

describe('SHORTCUT_HELP', () => {
  it('lists every section and every single key once', () => {
    const keys = SHORTCUT_HELP.map((h) => h.keys.join(' '));
    expect(new Set(keys).size).toBe(keys.length);
    for (const s of SECTION_KEYS) expect(keys).toContain(`g ${s.key}`);
    for (const k of ['/', 'j', 'k', 'Enter', 'r', '?']) expect(keys).toContain(k);
  });
});
