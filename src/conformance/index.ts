/**
 * `psp-sdk/conformance`: the spec as a contract kit. {@link runContract} points the executable checks of spec
 * sections 2-8 at any deployment (the real test-mode service, a staging build, the reference) and returns what
 * passed and what did not, with the quoted rule and what came back. `psp-reference contract` is its CLI.
 *
 * @packageDocumentation
 */
export { formatContractSummary, toJUnit } from './report.js';
export { ContractUsageError, listChecks, runContract } from './run.js';
export {
  CHECK_GROUPS,
  type CheckGroup,
  type CheckInfo,
  type CheckOutcome,
  type CheckResult,
  type ContractCounts,
  type ContractOptions,
  type ContractProgress,
  type ContractResult,
  type ContractWebhookOptions,
  type Observed,
} from './types.js';
