import './telemetry';
import { runMain } from '@gateway/runtime';
import { readConfig } from './config';
import { startMessaging } from './server';

runMain('messaging', () => readConfig(), startMessaging);
