export { directoryChangeMessage, followDirectoryChanges } from './notices';
export type { DirectoryChange, DirectoryChangeFollower } from './notices';
