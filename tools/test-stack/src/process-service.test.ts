import { takenPortOf } from './process-service';

describe('a service process that could not listen', () => {
  it('names the port another process took, from its fatal log line, so its start can pick again', () => {
    // the line a messaging process wrote when a parallel test run had taken its port between the pick and the bind
    const fatal =
      '{"level":"fatal","time":"2026-11-30T12:09:46.195Z","service":"messaging","name":"messaging","err":{"type":"Error","message":"listen EADDRINUSE: address already in use 0.0.0.0:23516","stack":"Error: listen EADDRINUSE"}}';
    expect(takenPortOf(['{"level":"info","msg":"starting"}', fatal])).toBe(23516);
    expect(takenPortOf(['Error: listen EADDRINUSE: address already in use :::40123'])).toBe(40123);
    // any other end is not a port taken
    expect(takenPortOf(['{"level":"fatal","err":{"message":"connect ECONNREFUSED 127.0.0.1:4222"}}'])).toBeUndefined();
    expect(takenPortOf([])).toBeUndefined();
  });
});
