import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startDispatcher } from './server';

runMain('dispatcher', () => readConfig(), startDispatcher);
