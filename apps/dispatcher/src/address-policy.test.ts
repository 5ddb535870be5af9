import { isPublicAddress } from './address-policy';

describe('webhook target address policy', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '::127.0.0.1',
    '[::1]',
    'fe80::1%eth0',
    // SIIT (::ffff:0:0/96) and local-use NAT64 (64:ff9b:1::/48)
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '0:0:0:0:ffff:0:a00:1',
    '64:ff9b:1::a9fe:a9fe',
    '64:ff9b:1:ffff::808:808',
    '64:ff9b:1::8.8.8.8',
  ])('refuses %s', (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:0808:0808::',
    '::ffff:0:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows %s', (ip) => expect(isPublicAddress(ip)).toBe(true));

  it('refuses what is not an address', () => {
    expect(isPublicAddress('localhost')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });
});
