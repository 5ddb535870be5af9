export { isStorableText, jsonDepthExceeds } from './storable';
