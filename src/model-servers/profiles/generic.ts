import { capabilities, type ProviderProfile } from './profile.ts';

/** Any other OpenAI-compatible server: nothing assumed, everything learned from its answers. */
export const generic: ProviderProfile<'generic'> = {
  id: 'generic',
  name: 'OpenAI-compatible server',
  matches: () => true,
  honours: capabilities({}),
  fixes: {},
  advice: ['run npm run doctor to see what the server honours'],
  sources: [],
};
