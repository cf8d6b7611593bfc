/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms
 * Condorcet and individual Rank Learning Methods", SIGIR 2009): each item scores the sum of
 * 1 / (k + rank) over the rankings that hold it, with k = 60 as the paper found best. It needs no
 * scores, so BM25's and cosine distances, which do not compare, fuse as they are.
 */
const fusionK = 60;

/** The items of the rankings (best first each), best first by their fused score; ties keep first-seen order. */
export function fuseByRank<T>(rankings: readonly (readonly T[])[], k = fusionK): T[] {
  const scores = new Map<T, number>();
  for (const ranking of rankings)
    ranking.forEach((item, index) => scores.set(item, (scores.get(item) ?? 0) + 1 / (k + index + 1)));
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([item]) => item);
}
