/**
 * How real model servers bend the protocol, each as documented or as its issue threads show it, in
 * their wire format (the sources are beside each quirk).
 */
export * from './hosted-api-quirks.ts';
export * from './local-server-quirks.ts';
export * from './quirk-rendering.ts';
export * from './llama-server.ts';
