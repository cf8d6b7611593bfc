/**
 * What the model is told of a tool's images (src/agent/tool-images.ts imagesLine): which it is
 * shown, and whether those meant for the person alone were shown to them.
 */
import { describe, expect, it } from 'vitest';
import { imagesLine, type ToolImage } from '../../src/agent/tool-images.ts';

const image = (audience?: 'people' | 'model'): ToolImage => ({
  mediaType: 'image/png',
  base64: '',
  width: 1,
  height: 1,
  ...(audience ? { audience } : {}),
});

describe("a tool's images, as the model is told of them", () => {
  it('names those it sees, and those posted for the person only', () => {
    expect(imagesLine([image(), image('people')], true, true)).toBe(
      '[The tool returned an image: shown to you after the results.]\n' +
        '[The tool returned an image for the person: posted in the thread, not for you.]',
    );
  });

  it('says so when the person was not shown theirs (TOOL_POSTS=off, the terminal)', () => {
    expect(imagesLine([image('people'), image('people')], true, false)).toBe(
      '[The tool returned 2 images for the person: not shown here, not for you.]',
    );
  });

  it('says a model that cannot see was not shown them', () => {
    expect(imagesLine([image('model')], false, true)).toBe(
      '[The tool returned an image: not shown, this model cannot see images.]',
    );
  });

  it('for /tool (no model), counts every image, and speaks to nobody of "you"', () => {
    expect(imagesLine([image(), image('people'), image('model')], undefined)).toBe('[The tool returned 3 images.]');
  });
});
