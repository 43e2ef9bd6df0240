// The layering of src/ (docs/architecture.md, "Layers"): a module imports only from its own
// layer or the ones below it. `npm test` runs this with scripts/check-layers.mjs, which also
// refuses two folders that import each other.
const LAYERS = [
  ['^src/(types|config|log|shutdown|chunk-metadata)[.]ts$'],
  ['^src/(search|answer)/', '^src/translate/(translator|apertium-stream|apertium-senses)[.]ts$', '^src/ingest/(parse|chunk|metadata)/', '^src/ingest/(access|title|describe-value)[.]ts$'],
  ['^src/(store|models|enrich)/', '^src/translate/(apertium|apertium-pipeline|model)[.]ts$', '^src/ingest/sources/'],
  ['^src/(index|queue|eval|ops)/', '^src/ingest/(pipeline|file-hash)[.]ts$', '^src/(app|ask|asker|indexer|ports)[.]ts$', '^src/ports/'],
  ['^src/(slack|admin|cli)/', '^src/(cli|serve)[.]ts$'],
];
const NAMES = ['core types and config', 'pure core', 'adapters', 'use cases', 'edges'];

module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map((paths, i) => ({
      name: `no-upward-from-${NAMES[i].replace(/ /g, '-')}`,
      comment: `${NAMES[i]} must not import from the layers above it`,
      severity: 'error',
      from: { path: paths },
      to: { path: LAYERS.slice(i + 1).flat() },
    })),
    {
      name: 'every-module-has-a-layer',
      comment: 'a new file under src/ must be given a layer in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.flat(), '[.]d[.]ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
