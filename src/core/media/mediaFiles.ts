/**
 * The names of the files media jobs keep in extension storage: results (one file per output) and
 * thumbnails. A job id is whatever string the gateway sent (`models/veo-3/operations/abc`, a
 * thousand characters, `con`), so names are never made from the id itself but from its hash
 * (`hashName`, as chat files are): one name per id, one id per name, valid on every file system.
 */
import { extensionForMime } from '../../api/media';
import { hashName } from '../storage/storeFiles';

/** Result number `index + 1` of the job: `<sha256 of the id>-<n>.<ext>`. */
export function resultFileName(jobId: string, index: number, mimeType: string | undefined): string {
  return `${hashName(jobId)}-${index + 1}.${extensionForMime(mimeType)}`;
}

/** The job's cached gallery thumbnail: `<sha256 of the id>.webp`. */
export function thumbnailFileName(jobId: string): string {
  return `${hashName(jobId)}.webp`;
}

/**
 * The name earlier versions gave a result (the id with characters replaced, cut at 80), still
 * read if present. Only for ids it left unchanged: where characters were replaced or the id was
 * cut, different ids shared the name and the file may be another job's.
 */
export function legacyResultFileName(
  jobId: string,
  index: number,
  mimeType: string | undefined,
): string | undefined {
  return hasOwnLegacyName(jobId) ? `${jobId}-${index + 1}.${extensionForMime(mimeType)}` : undefined;
}

/**
 * Whether `name`, a file in the results folder, is one of the job's results: under its hashed
 * name, or under the legacy name when that name can only be this job's. What deleting a job's
 * files goes by, so it never takes another job's.
 */
export function isResultFileOf(jobId: string, name: string): boolean {
  const stem = RESULT_NAME.exec(name)?.[1];
  if (stem === undefined) return false;
  return stem === hashName(jobId) || (hasOwnLegacyName(jobId) && stem === jobId);
}

/** `<stem>-<n>.<ext>`, as resultFileName and the legacy names are made. */
const RESULT_NAME = /^([\s\S]+)-\d+\.[a-z0-9]+$/;

function hasOwnLegacyName(jobId: string): boolean {
  // 64 hex digits is what hashName makes: as a legacy name it would be another job's file.
  return jobId.length <= 80 && !/[^\w.-]/.test(jobId) && !/^[0-9a-f]{64}$/.test(jobId);
}
