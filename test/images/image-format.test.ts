import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/images/image-format.ts';
import { geminiTiles, imageTokenRule, openAIPatches, openAITiles } from '../../src/images/image-tokens.ts';
import { gif, jpeg, png, webp } from '../support/images.ts';

describe('what an image is, from its bytes', () => {
  it('reads the format and size of PNG, JPEG, WebP and GIF', () => {
    expect(sniffImage(png(640, 480))).toEqual({ mediaType: 'image/png', width: 640, height: 480, animated: false });
    expect(sniffImage(jpeg(1024, 768))).toEqual({
      mediaType: 'image/jpeg',
      width: 1024,
      height: 768,
      animated: false,
    });
    expect(sniffImage(webp(300, 200))).toEqual({ mediaType: 'image/webp', width: 300, height: 200, animated: false });
    expect(sniffImage(gif(16, 9))).toEqual({ mediaType: 'image/gif', width: 16, height: 9, animated: false });
  });

  it('tells animations: a GIF of two frames, an APNG, an animated WebP', () => {
    expect(sniffImage(gif(16, 16, 2))?.animated).toBe(true);
    expect(sniffImage(png(8, 8, { animated: true }))?.animated).toBe(true);
    expect(sniffImage(webp(8, 8, true))?.animated).toBe(true);
  });

  it('refuses what is not one of the four, whatever it is called: text, HTML, a cut header, nothing', () => {
    expect(sniffImage(Buffer.from('<html><body>not an image</body></html>'))).toBeNull();
    expect(sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toBeNull();
    expect(sniffImage(Buffer.from('BM'))).toBeNull(); // A BMP's start: not taken by the APIs.
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
    expect(sniffImage(png(0, 10))).toBeNull();
  });
});

describe("image tokens, by the provider's rule", () => {
  it("counts OpenAI's tiles: 85 + 170 a 512 px tile, after fitting 2048 and a 768 px shorter side", () => {
    // The documented examples (https://platform.openai.com/docs/guides/images-vision#calculating-costs).
    expect(openAITiles(1024, 1024)).toBe(765);
    expect(openAITiles(2048, 4096)).toBe(1105);
    expect(openAITiles(100, 100)).toBe(85 + 170); // Not scaled up: one tile.
  });

  it("counts OpenAI's 32 px patches, capped at 1,536, times the model's multiplier", () => {
    // The documented examples: 1024 × 1024 is 1,024 patches; 1800 × 2400 is capped at 1,452.
    expect(openAIPatches(1)(1024, 1024)).toBe(1024);
    expect(openAIPatches(1)(1800, 2400)).toBe(1452);
    expect(openAIPatches(1.62)(1024, 1024)).toBe(Math.ceil(1024 * 1.62));
  });

  it("counts Gemini's 258 a tile, and picks each provider's rule", () => {
    expect(geminiTiles(300, 300)).toBe(258);
    expect(geminiTiles(1000, 1000)).toBe(258 * 4);
    expect(imageTokenRule('gemini', 'gemini-2.5-flash')).toBe(geminiTiles);
    expect(imageTokenRule('openai', 'gpt-4o')).toBe(openAITiles);
    expect(imageTokenRule('openai', 'gpt-4.1-mini')(1024, 1024)).toBe(Math.ceil(1024 * 1.62));
    expect(imageTokenRule('ollama', 'llava:13b')).toBe(openAITiles);
  });
});
