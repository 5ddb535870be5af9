/*
 * Every response body the edge writes, each declared once with its JSON Schema (presenter.ts): routes answer with
 * `respond(ctx, Presenter, input)` and describe the answer with `json(text, Presenter)`; the document's component
 * schemas are the named records (records.ts).
 */
export { respond, pageOf, listOf, schemaOf, isPresenter, type Presenter, type AnyPresenter } from './presenter';
export * from './records';
export * from './answers';
export * from './campaigns';
