'use client';

import { useState } from 'react';
import { THEME_COOKIE, THEMES, type Theme } from './theme';

const LABEL: Record<Theme, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };

/** Cycles system → light → dark; the choice is a cookie so the server renders it without a flash. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  function next() {
    const t = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    setTheme(t);
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing in Firefox and Safari.
    document.cookie = `${THEME_COOKIE}=${t}; Path=/; Max-Age=31536000; SameSite=Lax`;
    if (t === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = t;
  }
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm"
      onClick={next}
      data-testid="theme-toggle"
      aria-label={`${LABEL[theme]}. Change theme`}
    >
      {theme === 'dark' ? '☾' : theme === 'light' ? '☀' : '◐'} <span className="hide-sm">{LABEL[theme]}</span>
    </button>
  );
}
