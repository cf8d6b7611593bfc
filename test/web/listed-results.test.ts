import { describe, expect, it } from 'vitest';
import { listedResults } from '../../src/web/search/providers/provider-profile.ts';

describe("a provider's list of results", () => {
  it('drops results without a URL, titles the untitled with their URL, takes the first date set, and keeps at most count', () => {
    const list = [
      { title: 'No link', description: 'dropped' },
      { url: ' https://a.example/ ', description: 'first', age: '2 days ago' },
      { url: 'https://b.example/', title: 'B', description: '  ', page_age: '2026-11-01', age: 'later' },
      { url: 'https://c.example/', title: 'C' },
      'not an object',
    ];
    const outcome = listedResults(
      list,
      { query: 'q', count: 2, freshness: null },
      { snippet: 'description', date: ['page_age', 'age'] },
    );
    expect(outcome).toEqual({
      results: [
        { title: 'https://a.example/', url: 'https://a.example/', snippet: 'first', date: '2 days ago' },
        { title: 'B', url: 'https://b.example/', snippet: '', date: '2026-11-01' },
      ],
      note: null,
    });
  });
});
