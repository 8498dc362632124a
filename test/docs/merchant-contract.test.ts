// Runs the merchant contract test example (examples/ is outside the project's test glob, so it runs once,
// from here). Importing it registers its describe blocks in this file.
import '../../examples/merchant-contract.test.js';
