import type * as z from 'zod/mini';

/** One problem with an input, named by its dotted path (`metadata.color`) so a user knows what to fix. */
export interface FieldIssue {
  field: string;
  message: string;
}

const GENERIC = 'Invalid input';

function fallback(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${issue.expected}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return 'is invalid';
  }
}

/** Turns zod issues into field-named messages; zod/mini ships no English messages of its own. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.map((issue) => {
    const field = issue.path.map(String).join('.') || '(body)';
    const message = issue.message && issue.message !== GENERIC ? issue.message : fallback(issue);
    return { field, message };
  });
}

/** `amount: must be at least 1; phone: must be +7 followed by exactly 10 digits` */
export function formatFieldIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.field === '(body)' ? i.message : `${i.field}: ${i.message}`)).join('; ');
}
