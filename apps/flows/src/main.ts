import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startFlows } from './server';

runMain('flows', () => readConfig(), startFlows);
