/**
 * The pixel budget, through the one function every image goes through (Discord, `/image` at the
 * terminal, MCP tools): each format's header read for its size, a claim over a side or the area
 * refused with the reason told, and the token estimates finite within the budget.
 */
import { describe, expect, it } from 'vitest';
import { geminiTiles, openAIPatches, openAITiles } from '../../src/images/image-tokens.ts';
import { maxImagePixels, maxImageSide, takeImageBytes } from '../../src/images/take-image.ts';
import { toolResult } from '../../src/mcp/mcp-tool-results.ts';
import { gif, jpeg, png, pngClaiming, webp, webpLossless, webpLossy } from '../support/images.ts';

const refusal = (bytes: Buffer) => {
  const taken = takeImageBytes('x', bytes);
  return 'refused' in taken ? taken.refused : null;
};

describe('the pixel budget', () => {
  it('refuses a header claiming more than 8,000 pixels a side, in every format, and says why', () => {
    // The attacks of issue 27: a PNG of some 65 bytes claiming 2³¹ × 2³¹, a 30-byte WebP claiming 16M × 16M.
    const hugePng = pngClaiming(2 ** 31, 2 ** 31);
    const hugeWebp = webp(2 ** 24, 2 ** 24);
    expect([hugePng.length < 70, hugeWebp.length]).toEqual([true, 30]);
    expect(refusal(hugePng)).toBe(
      '2,147,483,648 × 2,147,483,648 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again)',
    );
    expect(refusal(hugeWebp)).toMatch(/^16,777,216 × 16,777,216 pixels, larger than/);
    // The largest each header can say, and one pixel over a side.
    for (const bytes of [
      jpeg(65535, 65535),
      gif(65535, 1),
      gif(1, 65535),
      webpLossy(16383, 16383),
      webpLossless(16384, 16384),
      webpLossless(8001, 1),
      png(1, 8001),
      jpeg(8001, 1),
    ])
      expect(refusal(bytes)).toMatch(/ pixels, larger than 8,000 pixels a side/);
  });

  it('refuses more than 40 megapixels in all, though each side is within', () => {
    expect(refusal(jpeg(7000, 7000))).toMatch(/^7,000 × 7,000 pixels, larger than/);
    expect(refusal(webpLossy(8000, 5001))).toMatch(/^8,000 × 5,001 pixels/);
  });

  it('takes what is within, at its edges, and reads each WebP form right', () => {
    for (const [bytes, width, height] of [
      [jpeg(8000, 5000), 8000, 5000],
      [webpLossy(8000, 5000), 8000, 5000],
      [webpLossless(5000, 8000), 5000, 8000],
      [webp(8000, 1), 8000, 1],
      [gif(1, 8000), 1, 8000],
      [png(3, 2), 3, 2],
    ] as const) {
      const taken = takeImageBytes('x', bytes);
      expect('image' in taken && [taken.image.width, taken.image.height]).toEqual([width, height]);
    }
    expect(maxImageSide * maxImageSide).toBeGreaterThan(maxImagePixels);
  });

  it('keeps every token estimate a whole number within sane bounds for any size the budget takes', () => {
    const sides = [1, 2, 31, 32, 33, 200, 384, 385, 767, 768, 1000, 2048, 4999, 5000, 7999, 8000];
    const rules = { openAITiles, patches: openAIPatches(1), patchesMini: openAIPatches(2.46), geminiTiles };
    for (const width of sides)
      for (const height of sides) {
        if (width * height > maxImagePixels) continue;
        for (const [name, rule] of Object.entries(rules)) {
          const tokens = rule(width, height);
          // Gemini's tiles at 8000 × 5000: 258 × 11 × 7 = 19,866; OpenAI's are capped lower.
          expect({ name, width, height, ok: Number.isInteger(tokens) && tokens >= 1 && tokens <= 20_000 }).toEqual({
            name,
            width,
            height,
            ok: true,
          });
        }
      }
  });

  it("holds for an MCP tool's images too: an image over it is named to the model, not shown", () => {
    const image = (bytes: Buffer) => ({ type: 'image', data: bytes.toString('base64'), mimeType: 'image/png' });
    const result = toolResult('test', 'shot', {
      content: [{ type: 'text', text: 'two screens' }, image(pngClaiming(65535, 65535)), image(png(4, 3))],
    });
    expect(result).toMatchObject({
      text: 'two screens\n[image image/png: not shown, 65,535 × 65,535 pixels, larger than 8,000 pixels a side or 40 megapixels in all (scale it down and post it again)]',
      images: [{ mediaType: 'image/png', width: 4, height: 3 }],
    });
  });
});
