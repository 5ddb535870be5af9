export { isStorableText, jsonDepthExceeds, jsonShapeExceeds } from './storable';
