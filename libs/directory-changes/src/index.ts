export { directoryChangeMessage, followDirectoryChanges, directoryChangeSchema, DIRECTORY_CHANGE_KINDS } from './notices';
export type { DirectoryChange, DirectoryChangeFollower } from './notices';
