/**
 * Names compared as a person sees them: a small skeleton in the manner of Unicode's confusable
 * detection (UTS #39), for the few names that must never be imitated (the built-in modes).
 * Two names with one skeleton look alike; different skeletons may still look alike in some font,
 * so use it to refuse a name, never to accept one. Pure.
 *
 * The skeleton: NFKC (fullwidth, mathematical and other compatibility forms), invisible and
 * format characters taken out, the Cyrillic, Greek, Cherokee and Latin lookalikes of Latin letters
 * and of `l` (`I`, `1`, `|`) mapped to them before and after case folding (capital Eta is `H`,
 * small eta `n`), accents taken off, `rn` read as `m` and `vv` as `w`, and spaces, punctuation
 * and symbols dropped.
 */

/** Letters that pass for Latin ones, by the Latin letter they pass for. */
const LOOKALIKES: Readonly<Record<string, string>> = {
  a: 'аɑαⱥ',
  A: 'АΑᎪᗅ',
  b: 'вƅЬ',
  B: 'ВΒᏴ',
  c: 'сϲς',
  C: 'СϹΣᏟ',
  d: 'ԁ',
  D: 'Ꭰ',
  e: 'еε',
  E: 'ЕΕᎬ',
  g: 'ɡ',
  G: 'Ԍ',
  h: 'һн',
  H: 'НΗᎻ',
  i: 'іιı',
  j: 'јϳ',
  J: 'ЈᎫ',
  k: 'кκ',
  K: 'КΚᏦ',
  l: 'IӀӏІΙ1|ǀ',
  L: 'Ꮮ',
  m: 'м',
  M: 'МΜᎷ',
  n: 'ηп',
  N: 'Ν',
  o: 'оοօ0',
  O: 'ОΟ',
  p: 'рρ',
  P: 'РΡᏢ',
  q: 'ԛ',
  s: 'ѕ',
  S: 'ЅᏚ',
  t: 'тτ',
  T: 'ТΤᎢ',
  u: 'υս',
  v: 'νѵ',
  V: 'Ꮩ',
  w: 'ԝ',
  x: 'хχ',
  X: 'ХΧ',
  y: 'уγү',
  Y: 'УΥҮ',
  Z: 'ΖᏃ',
};

const TO_LATIN: ReadonlyMap<string, string> = new Map(
  Object.entries(LOOKALIKES).flatMap(([latin, others]) => [...others].map((one) => [one, latin] as const)),
);

function mapLookalikes(text: string): string {
  let out = '';
  for (const char of text) out += TO_LATIN.get(char) ?? char;
  return out;
}

/** The skeleton of a name: names with one skeleton look alike (see the module's comment). */
export function nameSkeleton(name: string): string {
  const visible = name
    .slice(0, 1000)
    .normalize('NFKC')
    .replace(/[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/gu, '');
  return mapLookalikes(mapLookalikes(visible).toLowerCase())
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/[\s\p{Z}\p{P}\p{S}]/gu, '');
}

/** Whether two names look alike (one skeleton). */
export function looksLike(a: string, b: string): boolean {
  return nameSkeleton(a) === nameSkeleton(b);
}
