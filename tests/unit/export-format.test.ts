import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, exportFileName, exportTrailer, ndjsonLine, parseExportFormat } from '@/dashboard/client/export-format';
import { encodeExport } from '@/dashboard/exports/export-stream';
import type { ExportEnd } from '@/dashboard/client/export-format';

/** A minimal RFC 4180 reader, to check that what csvLine writes reads back as the same cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    } else cell += c;
  }
  return rows;
}

describe('CSV encoder', () => {
  it('leaves plain cells alone and writes nothing for null and undefined', () => {
    expect(csvCell('abc')).toBe('abc');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('quotes cells with commas, quotes and line breaks, doubling the quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line1\nline2')).toBe('"line1\nline2"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
  });

  it('writes objects as JSON, quoted since JSON holds quotes and commas', () => {
    expect(csvCell({ a: 1, b: 'x' })).toBe('"{""a"":1,""b"":""x""}"');
    expect(csvCell([1, 2])).toBe('"[1,2]"');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    for (const text of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '=HYPERLINK("http://x","y")']) {
      const cell = csvCell(text);
      const [[read]] = parseCsv(`${cell}\r\n`);
      expect(read).toBe(`'${text}`);
    }
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('defuses a formula behind leading whitespace or invisible characters, in fullwidth forms, and DDE(', () => {
    const hostile = [
      ' =1+2',
      '\n=1+2',
      '\r\n@SUM(A1)',
      '\u3000=1',
      '\u00a0+1',
      '＝1+2',
      '＋1',
      '－1',
      '＠SUM(A1)',
      '﹦1',
      '\u200b=1+2',
      '\u200d\u200c-1',
      '\ufeff=1',
      '\u2060@x',
      '\u202e=1',
      'DDE("cmd";"/C calc";"x")',
      'dde ("cmd")',
      ' plain text after a space',
    ];
    for (const text of hostile) {
      const [[read]] = parseCsv(csvLine([text]));
      expect(read, JSON.stringify(text)).toBe(`'${text}`);
    }
    for (const text of ['x＝1', 'a-b', 'ddex(', 'Dd', 'plain', '']) expect(csvCell(text)).toBe(text);
  });

  it('writes CRLF records that read back cell for cell', () => {
    const cells = ['id-1', 'a,b', 'quote " inside', 'multi\nline', '=cmd', { x: [1, '"'] }, undefined, 7];
    const line = csvLine(cells);
    expect(line.endsWith('\r\n')).toBe(true);
    expect(parseCsv(line)).toEqual([['id-1', 'a,b', 'quote " inside', 'multi\nline', "'=cmd", '{"x":[1,"\\""]}', '', '7']]);
  });
});

describe('NDJSON and the export frame', () => {
  it('writes one JSON record per line, without undefined fields', () => {
    const line = ndjsonLine({ a: 'x\ny', b: undefined, c: { d: 1 } });
    expect(line).toBe('{"a":"x\\ny","c":{"d":1}}\n');
    expect(line.slice(0, -1).includes('\n')).toBe(false);
  });

  it('reads the format from a URL: csv by default, undefined for an unknown one', () => {
    expect(parseExportFormat(null)).toBe('csv');
    expect(parseExportFormat('ndjson')).toBe('ndjson');
    expect(parseExportFormat('xlsx')).toBeUndefined();
  });

  it('names the file with safe characters and a UTC stamp', () => {
    expect(exportFileName(['bullpen', 'p:{q}~a b', 'failed'], 'csv', Date.UTC(2025, 0, 31, 4, 5, 6))).toBe(
      'bullpen-p_q_a_b-failed-2025-01-31-040506.csv',
    );
  });

  it('adds a trailer only when the export was cut', () => {
    expect(exportTrailer('csv', { rows: 3 }, 10)).toBe('');
    expect(exportTrailer('csv', { rows: 10, cut: 'max-rows' }, 10)).toMatch(/^# export cut at 10 rows/);
    const nd = JSON.parse(exportTrailer('ndjson', { rows: 5, cut: 'scan-window', scanned: 100, scanLimit: 100 }, 10));
    expect(nd._export).toMatchObject({ cut: 'scan-window', rows: 5, scanned: 100 });
  });

  it('encodes pages of rows lazily: header, one chunk per page, then the trailer', async () => {
    const pulled: number[] = [];
    async function* pages(): AsyncGenerator<Array<{ id: string; v?: number }>, ExportEnd> {
      pulled.push(1);
      yield [{ id: 'a', v: 1 }, { id: '=b' }];
      pulled.push(2);
      yield [{ id: 'c', v: 3 }];
      return { rows: 3, cut: 'max-rows' };
    }
    const csv = encodeExport(pages(), ['id', 'v'], 'csv', 3);
    expect((await csv.next()).value).toBe('id,v\r\n');
    expect(pulled).toEqual([]);
    expect((await csv.next()).value).toBe("a,1\r\n'=b,\r\n");
    expect(pulled).toEqual([1]);
    const rest: string[] = [];
    let end: IteratorResult<string, ExportEnd>;
    while (!(end = await csv.next()).done) rest.push(end.value);
    expect(rest[0]).toBe('c,3\r\n');
    expect(rest[1]).toMatch(/^# export cut at 3 rows/);
    expect(end.value).toEqual({ rows: 3, cut: 'max-rows' });

    const nd: string[] = [];
    for await (const chunk of encodeExport(pages(), ['id', 'v'], 'ndjson', 10)) nd.push(chunk);
    const lines = nd
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, 3)).toEqual([{ id: 'a', v: 1 }, { id: '=b' }, { id: 'c', v: 3 }]);
    expect(lines[3]._export.cut).toBe('max-rows');
  });
});
