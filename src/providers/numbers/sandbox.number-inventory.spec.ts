import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { SandboxNumberInventory } from './sandbox.number-inventory';

describe('sandbox number inventory', () => {
  const inventory = new SandboxNumberInventory();

  it.each([
    ['US', 'local', ['FIXED_LINE_OR_MOBILE']],
    ['GB', 'local', ['FIXED_LINE']],
    ['GB', 'mobile', ['MOBILE']],
    ['DE', 'toll_free', ['TOLL_FREE']],
    ['FR', 'mobile', ['MOBILE']],
  ] as const)('%s %s numbers are valid numbers of that type and country', async (country, type, kinds) => {
    const offers = await inventory.search({ countryCode: country, type, limit: 50 });
    expect(offers).toHaveLength(50);
    expect(new Set(offers.map((o) => o.number)).size).toBe(50);
    for (const o of offers) {
      const parsed = parsePhoneNumberFromString(o.number)!;
      expect(parsed.isValid()).toBe(true);
      expect(parsed.country).toBe(country);
      expect(kinds as readonly string[]).toContain(parsed.getType());
    }
  });

  it('is the same in every process and filters by digits', async () => {
    const a = await new SandboxNumberInventory().search({ countryCode: 'US', type: 'local', limit: 3 });
    const b = await inventory.search({ countryCode: 'US', type: 'local', limit: 3 });
    expect(a).toEqual(b);
    expect(a[0].number).toBe('+12015550123');
    const digits = a[1].number.slice(-3);
    const found = await inventory.search({ countryCode: 'US', type: 'local', contains: digits, limit: 50 });
    expect(found.map((o) => o.number)).toContain(a[1].number);
    expect(found.every((o) => o.number.includes(digits))).toBe(true);
    expect(inventory.offers(a[1].number, 'US', 'local')).toBe(true);
    expect(inventory.offers('+14155550123', 'US', 'local')).toBe(false);
  });

  it('answers no numbers where libphonenumber knows none of the type', async () => {
    expect(await inventory.search({ countryCode: 'CA', type: 'toll_free', limit: 5 })).toEqual([]);
  });
});
