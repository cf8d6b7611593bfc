import { describe, expect, it } from 'vitest';
import { BotError, describeError, errorMessage, toError, UserFacingError } from '../../src/agent/errors.ts';

describe('error description', () => {
  const userFacing = new UserFacingError('quota', 'You have used your quota for today.', {
    detail: 'user 42: 100,000 tokens',
  });

  it('errorMessage: what a person or the model may read', () => {
    expect(errorMessage(userFacing)).toBe('You have used your quota for today.');
    expect(errorMessage(new TypeError('x is not a function'))).toBe('x is not a function');
    expect(errorMessage('a thrown string')).toBe('a thrown string');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it('describeError: for logs and the step log, with the name and the detail', () => {
    expect(describeError(userFacing)).toBe('UserFacingError: user 42: 100,000 tokens');
    expect(describeError(new BotError('db', 'the disk is full'))).toBe('BotError: the disk is full');
    expect(describeError(42)).toBe('42');
  });

  it('toError: anything thrown, as an Error', () => {
    const error = new RangeError('out of range');
    expect(toError(error)).toBe(error);
    expect(toError('plain')).toEqual(new Error('plain'));
  });
});
