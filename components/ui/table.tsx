import type { ReactNode, TableHTMLAttributes } from 'react';

export interface TableProps extends TableHTMLAttributes<HTMLTableElement> {
  caption?: ReactNode;
  /**
   * Names the scrolling frame and makes it focusable, for a table whose cells hold nothing
   * focusable: without it, a table wider than a phone could be scrolled by a pointer only.
   * A table with links in its rows needs none (focusing a link scrolls it into view).
   * @defaultValue none: the frame is not a tab stop
   */
  scrollLabel?: string;
}

/** A table in a horizontally scrolling frame, so wide rows stay usable on a phone. */
export function Table({ caption, scrollLabel, children, ...rest }: TableProps) {
  return (
    <div className="table-wrap" {...(scrollLabel ? { role: 'region', 'aria-label': scrollLabel, tabIndex: 0 } : {})}>
      <table className="table" {...rest}>
        {caption && <caption>{caption}</caption>}
        {children}
      </table>
    </div>
  );
}
