// Neither package ships type declarations; these cover only what tokenize.ts uses.
declare module 'snowball-stemmers' {
  export interface SnowballStemmer {
    stem(word: string): string;
  }
  export function newStemmer(language: string): SnowballStemmer;
  export function algorithms(): string[];
}

declare module 'stopword' {
  export const eng: string[];
  export const spa: string[];
}
