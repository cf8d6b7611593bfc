import { describe, expect, it } from 'vitest';
import { reasoningField, splitThinking } from '../../src/model-servers/reasoning.ts';

describe('thinking kept out of what is posted', () => {
  it('takes <think> blocks out of the content, wherever they are', () => {
    expect(splitThinking('<think>\nThe user wants 2+2.\n</think>\n\nIt is 4.')).toEqual({
      content: 'It is 4.',
      thinking: 'The user wants 2+2.',
    });
    expect(splitThinking('A <thinking>hmm</thinking>B')).toEqual({ content: 'A B', thinking: 'hmm' });
  });

  it('handles an opening tag left in the prompt, and thinking cut off before its closing tag', () => {
    expect(splitThinking('Only the closing tag came.</think>Answer.')).toEqual({
      content: 'Answer.',
      thinking: 'Only the closing tag came.',
    });
    expect(splitThinking('<think>still thinking when the tokens ran out')).toEqual({
      content: '',
      thinking: 'still thinking when the tokens ran out',
    });
  });

  it('leaves content without thinking as it is', () => {
    expect(splitThinking('Plain answer.')).toEqual({ content: 'Plain answer.', thinking: null });
  });

  it('reads reasoning_content (DeepSeek, llama.cpp) and reasoning (vLLM, Ollama, OpenRouter)', () => {
    expect(reasoningField({ content: 'x', reasoning_content: ' why ' })).toBe('why');
    expect(reasoningField({ content: 'x', reasoning: 'because' })).toBe('because');
    expect(reasoningField({ content: 'x', reasoning: '' })).toBeNull();
  });
});
