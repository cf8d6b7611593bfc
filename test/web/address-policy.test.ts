import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/web/address-policy.ts';

/** The host a URL ends up naming, as the WHATWG parser (and so the fetch) reads it. */
const hostOf = (spelling: string) => new URL(`http://${spelling}/`).hostname;

describe('the address policy', () => {
  it.each([
    // spelling in a URL, canonical host after URL parsing, reason
    ['127.0.0.1', '127.0.0.1', 'loopback'],
    ['2130706433', '127.0.0.1', 'loopback'],
    ['0177.0.0.1', '127.0.0.1', 'loopback'],
    ['0x7f.1', '127.0.0.1', 'loopback'],
    ['0x7f000001', '127.0.0.1', 'loopback'],
    ['127.1', '127.0.0.1', 'loopback'],
    ['127.0.0.1.', '127.0.0.1', 'loopback'],
    ['[::1]', '[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', '[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', 'loopback'],
    ['[::ffff:7f00:1]', '[::ffff:7f00:1]', 'loopback'],
    ['10.0.0.1', '10.0.0.1', 'private'],
    ['012.1', '10.0.0.1', 'private'],
    ['172.16.0.1', '172.16.0.1', 'private'],
    ['172.31.255.255', '172.31.255.255', 'private'],
    ['192.168.1.1', '192.168.1.1', 'private'],
    ['[::ffff:192.168.1.1]', '[::ffff:c0a8:101]', 'private'],
    ['169.254.169.254', '169.254.169.254', 'cloud metadata'],
    ['2852039166', '169.254.169.254', 'cloud metadata'],
    ['[::ffff:169.254.169.254]', '[::ffff:a9fe:a9fe]', 'cloud metadata'],
    ['169.254.1.1', '169.254.1.1', 'link-local'],
    ['100.64.0.1', '100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', '100.100.100.200', 'cloud metadata'],
    ['168.63.129.16', '168.63.129.16', 'cloud metadata'],
    ['[fc00::1]', '[fc00::1]', 'unique-local'],
    ['[fd00:ec2::254]', '[fd00:ec2::254]', 'cloud metadata'],
    ['[fd12:3456::1]', '[fd12:3456::1]', 'unique-local'],
    ['[fe80::1]', '[fe80::1]', 'link-local'],
    ['0.0.0.0', '0.0.0.0', 'unspecified'],
    ['0', '0.0.0.0', 'unspecified'],
    ['[::]', '[::]', 'unspecified'],
    ['224.0.0.1', '224.0.0.1', 'multicast'],
    ['[ff02::1]', '[ff02::1]', 'multicast'],
    ['255.255.255.255', '255.255.255.255', 'broadcast'],
    ['[64:ff9b::7f00:1]', '[64:ff9b::7f00:1]', 'NAT64'],
    ['[64:ff9b::127.0.0.1]', '[64:ff9b::7f00:1]', 'NAT64'],
    ['[2002:7f00:1::]', '[2002:7f00:1::]', '6to4'],
    ['[2001::1]', '[2001::1]', 'Teredo'],
    ['[::7f00:1]', '[::7f00:1]', 'not globally routable'],
    ['[::ffff:0:7f00:1]', '[::ffff:0:7f00:1]', 'IPv4-translated'],
    ['192.0.2.1', '192.0.2.1', 'reserved or documentation'],
    ['198.18.0.1', '198.18.0.1', 'reserved or documentation'],
    ['240.0.0.1', '240.0.0.1', 'reserved or documentation'],
    ['[2001:db8::1]', '[2001:db8::1]', 'reserved or documentation'],
    ['[2001:2::1]', '[2001:2::1]', 'benchmarking'],
  ])('refuses %s (read as %s): %s', (spelling, canonical, reason) => {
    expect(hostOf(spelling)).toBe(canonical);
    const verdict = classifyAddress(hostOf(spelling));
    expect(verdict.allowed).toBe(false);
    expect(verdict).toMatchObject({ reason: expect.stringContaining(reason) });
  });

  it.each([
    ['93.184.215.14', '93.184.215.14', 4],
    ['1.1.1.1', '1.1.1.1', 4],
    ['172.32.0.1', '172.32.0.1', 4],
    ['100.128.0.1', '100.128.0.1', 4],
    ['[2606:4700::1111]', '2606:4700::1111', 6],
    ['[2a00:1450:4001:80b::200e]', '2a00:1450:4001:80b::200e', 6],
    ['[::ffff:93.184.215.14]', '93.184.215.14', 4],
  ])('allows the public address %s, to be dialled as %s', (spelling, address, family) => {
    expect(classifyAddress(hostOf(spelling))).toEqual({ allowed: true, address, family });
  });

  it('reads what a resolver could answer in any spelling, and dials only the canonical one', () => {
    expect(classifyAddress('0177.0.0.1')).toMatchObject({ allowed: false, address: '127.0.0.1' });
    expect(classifyAddress('2130706433')).toMatchObject({ allowed: false, address: '127.0.0.1' });
    expect(classifyAddress('0x7f.0.0.1')).toMatchObject({ allowed: false, address: '127.0.0.1' });
    expect(classifyAddress('::ffff:10.0.0.1')).toMatchObject({
      allowed: false,
      address: '10.0.0.1',
      reason: 'a private address',
    });
    expect(classifyAddress('fe80::1%eth0')).toMatchObject({ allowed: false });
    expect(classifyAddress('2606:4700:0:0:0:0:0:1111')).toEqual({
      allowed: true,
      address: '2606:4700::1111',
      family: 6,
    });
  });

  it('refuses what is not an IP address at all', () => {
    expect(classifyAddress('example.com')).toMatchObject({
      allowed: false,
      reason: 'something that is not an IP address',
    });
    expect(classifyAddress('')).toMatchObject({ allowed: false });
    expect(classifyAddress('1.2.3.4.5')).toMatchObject({ allowed: false });
  });
});
