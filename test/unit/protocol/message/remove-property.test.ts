import { expect } from 'chai';
import { propertiesToString, removeProperty, stringToProperties } from '../../../../protocol/message/properties';

describe('protocol/message removeProperty', () => {
  const viaMap = (s: string, name: string) => {
    const p = stringToProperties(s);
    delete p[name];
    return propertiesToString(p);
  };
  const cases: Array<Record<string, string>> = [
    {},
    { WAIT: 'true' },
    { WAIT: 'true', TAGS: 'a', KEYS: 'k' },
    { TAGS: 'a', WAIT: 'false', KEYS: 'k' },
    { TAGS: 'a', KEYS: 'k', WAIT: 'true' },
    { WAITX: '1', XWAIT: '2', TAGS: 'WAIT' },
    { UNIQ_KEY: 'ABC', WAIT: 'true' },
  ];
  for (const props of cases) {
    it(`matches parse + delete + serialize for ${JSON.stringify(props)}`, () => {
      const s = propertiesToString(props);
      expect(removeProperty(s, 'WAIT')).to.equal(viaMap(s, 'WAIT'));
    });
  }
  it('returns the same string when the name is absent', () => {
    const s = propertiesToString({ TAGS: 'a', KEYS: 'k' });
    expect(removeProperty(s, 'WAIT')).to.equal(s);
  });
});
