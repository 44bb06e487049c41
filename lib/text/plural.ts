/** `1 job`, `2 jobs`, `1,200 jobs`: a count with its noun in the right number (client-safe). */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? noun : pluralNoun}`;
}
