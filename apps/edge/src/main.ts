import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startEdge } from './server';

runMain('edge', () => readConfig(), startEdge);
