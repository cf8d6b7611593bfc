/** The types of own-source-map.mjs, for the tests that import it. */
export interface SourceMapV3 {
  version: number;
  sources: string[];
  names: string[];
  mappings: string;
  [field: string]: unknown;
}

export function ownCodeOnly(map: SourceMapV3): { map: SourceMapV3; mapsOwnCode: boolean };
