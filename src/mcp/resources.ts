// The rules the agent reads instead of guessing them: the spec, whole and by section, and the guides, as the build
// put them into the package (texts.ts).
import { redactSecrets } from '../internal/redact.js';
import { ToolRefusal } from './errors.js';
import { CODE } from '../schemas/errors.js';
import { texts } from './texts.js';

/** A resource as resources/list shows it. */
export interface ResourceInfo {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'text/markdown';
}

interface Text extends ResourceInfo {
  text: string;
}

const titleOf = (text: string, fallback: string) => /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? fallback;

/** The spec's numbered sections (`## 4. Endpoints`), each with its subsections. */
function specSections(spec: string): Text[] {
  const parts = spec.split(/^(?=## \d+\. )/m).slice(1);
  return parts.map((part) => {
    const heading = /^## (\d+)\. (.+)$/m.exec(part)!;
    return {
      uri: `psp://spec/${heading[1]}`,
      name: `spec-${heading[1]}`,
      title: `Spec ${heading[1]}. ${heading[2]!.trim()}`,
      description: `Section ${heading[1]} of the Payment Service Public API specification.`,
      mimeType: 'text/markdown',
      text: part.trim(),
    };
  });
}

let all: Map<string, Text> | undefined;

function resources(): Map<string, Text> {
  if (all) return all;
  const spec: Text = {
    uri: 'psp://spec',
    name: 'spec',
    title: titleOf(texts.spec, 'Payment Service Public API: Specification'),
    description: 'The whole Payment Service Public API specification: the law for the API.',
    mimeType: 'text/markdown',
    text: texts.spec,
  };
  const docs = Object.entries(texts.docs).map(
    ([name, text]): Text => ({
      uri: `psp://docs/${name}`,
      name: `docs-${name}`,
      title: titleOf(text, name),
      description: `psp-sdk's guide docs/${name}.md.`,
      mimeType: 'text/markdown',
      text,
    }),
  );
  // The guides' sample keys (`sk_test_...`) go masked like any secret: no resource carries one.
  all = new Map(
    [spec, ...specSections(texts.spec), ...docs].map((r) => [r.uri, { ...r, text: redactSecrets(r.text) }]),
  );
  return all;
}

/** Every resource, without its text. */
export function listResources(): ResourceInfo[] {
  return [...resources().values()].map(({ text: _, ...info }) => info);
}

/** One resource's text. @throws ToolRefusal for an unknown URI. */
export function readResource(uri: string): { uri: string; mimeType: string; text: string } {
  const r = resources().get(uri);
  if (!r)
    throw new ToolRefusal(
      CODE.not_found,
      404,
      `No resource ${JSON.stringify(uri.slice(0, 200))}; resources/list names them.`,
    );
  return { uri: r.uri, mimeType: r.mimeType, text: r.text };
}
