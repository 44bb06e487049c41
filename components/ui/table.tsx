import type { ReactNode, TableHTMLAttributes } from 'react';

/** A table in a horizontally scrolling frame, so wide rows stay usable on a phone. */
export function Table({ caption, children, ...rest }: TableHTMLAttributes<HTMLTableElement> & { caption?: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table" {...rest}>
        {caption && <caption>{caption}</caption>}
        {children}
      </table>
    </div>
  );
}
