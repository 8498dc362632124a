// The limits a field's TSDoc states (`at most 256 characters`) are the ones its schema enforces. The numbers are
// written out for the reader of an editor's hover, so they are copies of LIMITS: this holds each copy to the
// document made from the schemas, and fails when a limit moves and its words stay.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import document from '../../openapi.json' with { type: 'json' };

const root = join(import.meta.dirname, '..', '..');

interface Prop {
  maxLength?: number;
  maxProperties?: number;
  propertyNames?: { maxLength?: number };
  additionalProperties?: { maxLength?: number } | boolean;
}

/** Each request body's property, by name, with the limits the document gives it (one entry per component). */
function bodyProperties(): Map<string, Prop[]> {
  const byName = new Map<string, Prop[]>();
  const schemas = document.components.schemas as Record<string, { properties?: Record<string, Prop> }>;
  for (const [component, schema] of Object.entries(schemas)) {
    if (!component.endsWith('Input')) continue;
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      byName.set(name, [...(byName.get(name) ?? []), prop]);
    }
  }
  return byName;
}

/** The limits a property's words state, in the order the sentence gives them, and those its schema gives. */
function stated(doc: string): number[] {
  const numbers: number[] = [];
  for (const m of doc.matchAll(/\b(?:at most|up to) (\d[\d,]*)(?: (?:characters|keys))?/g))
    numbers.push(Number(m[1]!.replaceAll(',', '')));
  return numbers;
}

function enforced(prop: Prop): number[] {
  const values = prop.additionalProperties;
  return [
    prop.maxLength,
    prop.maxProperties,
    prop.propertyNames?.maxLength,
    typeof values === 'object' ? values.maxLength : undefined,
  ].filter((n): n is number => n !== undefined);
}

/** Every `/** ... *\/` directly above a property `name:` (line comments between them allowed), in src/. */
function documentedProperties(): Array<{ where: string; name: string; doc: string }> {
  const found: Array<{ where: string; name: string; doc: string }> = [];
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:\/\/[^\n]*\n\s*)*(\w+)\??:/g)) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ where: `${relative(root, file)}:${line}`, name: m[2]!, doc: m[1]! });
    }
  }
  return found;
}

describe('the limits written in TSDoc', () => {
  it('are the limits the schema of the documented request field enforces', () => {
    const props = bodyProperties();
    const checked: string[] = [];
    for (const { where, name, doc } of documentedProperties()) {
      const numbers = stated(doc);
      const candidates = props.get(name);
      if (numbers.length === 0 || !candidates) continue;
      // A field of several bodies (none today) must state a limit true of each.
      for (const prop of candidates) {
        const limits = enforced(prop);
        for (const n of numbers) expect(limits, `${where}: ${name}'s TSDoc says ${n}`).toContain(n);
      }
      checked.push(name);
    }
    // The fields whose words carry a limit today: the check ran on them.
    expect(checked).toEqual(
      expect.arrayContaining([
        'order_id',
        'customer_id',
        'return_url',
        'description',
        'webhook_url',
        'metadata',
      ]),
    );
    expect(checked).toEqual(expect.arrayContaining(['reason', 'full_name']));
  });

  it('fails on a stated number the schema does not enforce', () => {
    expect(stated('Your own order reference; at most 255 characters.')).toEqual([255]);
    expect(enforced({ maxLength: 256 })).not.toContain(255);
    expect(stated('at most 50 keys of up to 40 characters, values up to 500')).toEqual([50, 40, 500]);
  });
});
