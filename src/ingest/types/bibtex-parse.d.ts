// bibtex-parse 2.1.0 ships no type declarations; this covers the part of its API labbot uses.
declare module 'bibtex-parse' {
  export type BibDatatype = 'braced' | 'quoted' | 'number' | 'identifier' | 'concatinate' | 'null';

  export interface BibValue {
    value: string | number | bigint | BibValue[] | null;
    datatype: BibDatatype;
    raw?: string;
  }

  export interface BibField extends BibValue {
    name: string;
  }

  export type BibItem =
    | { itemtype: 'entry'; type: string; key: string; fields: BibField[]; raw: string }
    | ({ itemtype: 'string'; name: string; raw: string } & BibValue)
    | { itemtype: 'preamble' | 'comment'; raw: string };

  export interface BibParseOptions {
    number?: 'auto' | 'number' | 'bigint' | 'string';
  }

  const bibtex: {
    parse(input: string, options?: BibParseOptions): BibItem[];
    entries(input: string, options?: BibParseOptions): Array<Record<string, unknown>>;
  };
  export default bibtex;
}
