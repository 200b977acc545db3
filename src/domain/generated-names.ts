/** Longest part of a generated image's file name taken from its prompt (characters, before " 1.png"). */
export const PROMPT_NAME_CHARS = 60;

/**
 * The file name of a generated image (issue #13): the prompt's first words, letters and digits of
 * any script kept, everything else (punctuation, path separators, control and bidirectional
 * characters, emoji) as a space, cut at a word boundary; then the image's number and extension.
 * `"A cat, on Mars!"`, image 0, png -> `A cat on Mars 1.png`. Nothing usable left: `generated image 1.png`.
 */
export function generatedFileName(prompt: string, index: number, extension: string): string {
  const words = prompt
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim();
  // By code points, so a letter outside the BMP is never cut in half.
  const chars = Array.from(words);
  let base = words;
  if (chars.length > PROMPT_NAME_CHARS) {
    const cut = chars.slice(0, PROMPT_NAME_CHARS + 1);
    const space = cut.lastIndexOf(' ');
    base = (space > PROMPT_NAME_CHARS / 2 ? cut.slice(0, space) : cut.slice(0, PROMPT_NAME_CHARS)).join('').trim();
  }
  return `${base || 'generated image'} ${index + 1}.${extension}`;
}
