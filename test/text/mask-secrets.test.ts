import { describe, expect, it } from 'vitest';
import { censor, isSecret, maskWith, secretMask } from '../../src/text/mask-secrets.ts';
import { maskSecrets } from '../../src/model-servers/openai-transport.ts';

describe('what counts as a secret', () => {
  it("is never a local server's placeholder key, whatever its case, nor a value under 8 characters", () => {
    for (const placeholder of ['none', 'ollama', 'lm-studio', 'sk-no-key-required', 'EMPTY', 'token-abc123'])
      expect(isSecret(placeholder), placeholder).toBe(false);
    expect(isSecret('abc1234')).toBe(false);
    expect(isSecret('BSA-9f8e7d6c5b4a')).toBe(true);
  });

  it('leaves every word of a line alone when the settings hold only placeholders', () => {
    expect(secretMask(['none', 'ollama', 'lm-studio'])).toBeNull();
    expect(maskSecrets('tools: none needed; the key sk-no-key-required is fine', 'none')).toBe(
      'tools: none needed; the key sk-no-key-required is fine',
    );
  });
});

describe('masking', () => {
  const secret = 'Zq8vK2mP9xL4';
  const mask = maskWith([secret]);

  it('finds a secret as a whole token: in a header, a query, JSON, a URL', () => {
    expect(mask(`Authorization: Bearer ${secret}`)).toBe(`Authorization: Bearer ${censor}`);
    expect(mask(`https://api.example/search?key=${secret}&q=x`)).toBe(`https://api.example/search?key=${censor}&q=x`);
    expect(mask(JSON.stringify({ key: secret }))).toBe(`{"key":"${censor}"}`);
  });

  it('never inside a longer word', () => {
    expect(mask(`prefix${secret}`)).toBe(`prefix${secret}`);
    expect(mask(`${secret}9`)).toBe(`${secret}9`);
  });

  it('masks the longer of two secrets whole, and a secret with JSON escapes in its JSON form', () => {
    expect(maskWith(['abcd1234', 'abcd1234-efgh5678'])('key abcd1234-efgh5678')).toBe(`key ${censor}`);
    expect(maskWith(['pa"ss\\word12'])(JSON.stringify({ password: 'pa"ss\\word12' }))).toBe(`{"password":"${censor}"}`);
  });

  it("masks an OpenAI-shaped key the settings did not name, but not llama.cpp's placeholder", () => {
    expect(maskSecrets('key sk-proj-abcdefghijklmnop', null)).toBe('key sk-pr…[redacted]');
    expect(maskSecrets('key sk-no-key-required', null)).toBe('key sk-no-key-required');
  });
});
