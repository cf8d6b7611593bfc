/**
 * A source map cut down to the project's code (scripts/build.mjs). Plain JavaScript, as build.mjs is; its codec is a development dependency, imported
 * only when there is something to build.
 */
import { decode, encode } from '@jridgewell/sourcemap-codec';

/**
 * The map with only the mappings into the project's code (sources outside node_modules/), and
 * whether any is left; of a package's, only the first after one of ours on the same line is kept
 * (minified code shares lines). Without it, our mapping would stretch over the package's code and
 * a frame in the package would read as a line of ours. An unmapped segment (a generated column
 * alone) would not do: node's parser carries the previous source over to it
 * (lib/internal/source_map/source_map.js, `#parseMappings`).
 */
export function ownCodeOnly(map) {
  const ours = map.sources.map((source) => !source.includes('node_modules/'));
  let mapsOwnCode = false;
  const lines = decode(map.mappings).map((segments) => {
    const kept = [];
    for (const segment of segments) {
      const own = segment.length > 1 && ours[segment[1]];
      mapsOwnCode ||= own;
      const afterOurs = kept.length > 0 && ours[kept.at(-1)[1]];
      if (own || (afterOurs && segment.length > 1)) kept.push(segment);
    }
    return kept;
  });
  return { map: { ...map, mappings: encode(lines) }, mapsOwnCode };
}
