/** A name any file system takes as an ordinary file: Windows (NTFS, FAT) and POSIX. */
export function isPortableFileName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === '.' || name === '..') return false;
  // eslint-disable-next-line no-control-regex
  if (/[<>:"/\\|?*\u0000-\u001f]/.test(name)) return false;
  if (/[ .]$/.test(name)) return false;
  const base = name.split('.')[0].replace(/[ .]+$/, '');
  return !/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i.test(base);
}
