import type { ComponentChildren } from 'preact';
import { Empty, Link, Loaded, Pager } from './components';
import type { CursorPages } from './hooks';

/** One column of a `RecordTable`. */
export interface Column<T> {
  head: string;
  /** The header is for screen readers only (a column of links). */
  srOnly?: boolean;
  /** The cell that names the row: `<th scope="row">`. */
  rowHeader?: boolean;
  class?: string;
  cell: (row: T) => ComponentChildren;
}

export interface TableProps<T> {
  columns: Column<T>[];
  /** Each row's id: its key, and its `rowAttr` attribute when given (`data-client-id`...). */
  rowKey: (row: T) => string | number;
  rowAttr?: `data-${string}`;
}

/** A table of records: one header row, a row per record. */
export function RecordTable<T>({ rows, columns, rowKey, rowAttr }: TableProps<T> & { rows: T[] }) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.head} scope="col">
              {c.srOnly ? <span class="sr-only">{c.head}</span> : c.head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const id = rowKey(r);
          return (
            <tr key={id} {...(rowAttr ? { [rowAttr]: id } : {})}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th key={c.head} scope="row" class={c.class}>
                    {c.cell(r)}
                  </th>
                ) : (
                  <td key={c.head} class={c.class}>
                    {c.cell(r)}
                  </td>
                ),
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The last column of a list: a link to the record's own view, `label` naming the record for screen readers. */
export function openColumn<T>(to: (row: T) => string, label: (row: T) => string): Column<T> {
  return {
    head: 'Open',
    srOnly: true,
    cell: (r) => (
      <Link href={to(r)} aria-label={label(r)}>
        Open
      </Link>
    ),
  };
}

/**
 * A page of a cursor-paged list (`useCursorPages`) as a table with its `Pager`: loading and error states through
 * `Loaded` ("Loading {what}…"), `empty` when the first page has no record. The pager is labelled "{What} pages".
 */
export function CursorList<T>({ list, what, empty, ...table }: TableProps<T> & { list: CursorPages<T>; what: string; empty: ComponentChildren }) {
  return (
    <Loaded load={list.load} what={what} retry={list.reload}>
      {(page) =>
        page.data.length === 0 && !list.hasPrev ? (
          <Empty>{empty}</Empty>
        ) : (
          <>
            <RecordTable rows={page.data} {...table} />
            <Pager
              label={what[0].toUpperCase() + what.slice(1)}
              page={list.page}
              hasPrev={list.hasPrev}
              nextCursor={page.next_cursor}
              onPrev={list.prev}
              onNext={list.next}
            />
          </>
        )
      }
    </Loaded>
  );
}
