#!/usr/bin/env node
// `postpack`: puts back the `prepare` script that prepack took out of package.json for the tarball
// (see pack-manifest.mjs).
import { restorePrepare } from './pack-manifest.mjs';

restorePrepare();
