/**
 * Per-language switch (`flashls.completion.languages`): `{languageId: boolean}` with
 * `"*"` as the default for languages not listed. Pure: no `vscode` import.
 */

export const TOGGLE_LANGUAGE_COMMAND = 'flashls.toggleLanguage';

export type LanguageMap = Record<string, boolean>;

/** A clean copy of the setting: only boolean entries survive. */
export function languageMap(raw: unknown): LanguageMap {
  const out: LanguageMap = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { '*': true };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key && typeof value === 'boolean') out[key] = value;
  }
  if (!('*' in out)) out['*'] = true;
  return out;
}

/** Whether AI features run for `languageId` under `languages`. */
export function languageEnabled(languages: unknown, languageId: string): boolean {
  const map = languageMap(languages);
  return languageId in map ? map[languageId] : map['*'] !== false;
}

/** The setting after flipping one language, and that language's new state. */
export function toggleLanguage(languages: unknown, languageId: string): { languages: LanguageMap; enabled: boolean } {
  const map = languageMap(languages);
  const enabled = !languageEnabled(map, languageId);
  return { languages: { ...map, [languageId]: enabled }, enabled };
}
