// `mocha --require` (npm run test:unit) loads this file for its effect: one seed for the run.
import { configurePropertySeed } from './propertySeed';

configurePropertySeed();
