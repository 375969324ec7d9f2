/**
 * The dashboard's theme: the system's setting (the default), or light or dark as chosen in the top bar and
 * kept in this browser. The document carries the resolved one (`data-theme="light" | "dark"`), which the
 * stylesheet's colour variables follow; under "system" it follows the system's setting as it changes.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'sightline.theme';
const dark = () => window.matchMedia('(prefers-color-scheme: dark)');

export function storedTheme(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system'; // storage refused (a private window's policy): the system's setting
  }
}

function apply(choice: ThemeChoice): void {
  const resolved = choice === 'system' ? (dark().matches ? 'dark' : 'light') : choice;
  document.documentElement.dataset.theme = resolved;
}

/** Applies the stored choice now, and again whenever the system's setting changes while it is "system". */
export function startTheme(): void {
  apply(storedTheme());
  dark().addEventListener('change', () => {
    if (storedTheme() === 'system') apply('system');
  });
}

/** Keeps `choice` in this browser and applies it. */
export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(KEY);
    else window.localStorage.setItem(KEY, choice);
  } catch {
    // not kept: applied for this page only
  }
  apply(choice);
}
