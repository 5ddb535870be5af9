/**
 * A stand-in for the provider's JavaScript SDK (reference §6.1), served as GET /sdk.js. It offers what a
 * page uses for embedded signup: `fbAsyncInit`, `FB.init({appId, version})` and
 * `FB.login(callback, {config_id, response_type: 'code', override_default_response_type, extras})`, which
 * opens the simulator's signup dialog in a popup. The dialog posts the session-info messages to the page
 * itself; the authorization code travels back to this script on a private message type, and the callback
 * gets `{status, authResponse: {code}}` — or `authResponse: null` when the popup is closed or cancelled.
 */
export const SDK_SCRIPT = String.raw`(function () {
  'use strict';
  if (window.FB && window.FB.__simulated) return;
  var script = document.currentScript;
  var providerOrigin = new URL(script && script.src ? script.src : location.href).origin;
  var settings = null;

  function login(callback, options) {
    if (!settings) throw new Error('FB.login() called before FB.init().');
    options = options || {};
    var nonce = Math.random().toString(36).slice(2) + Date.now().toString(36);
    var params = new URLSearchParams({
      client_id: settings.appId,
      config_id: String(options.config_id || ''),
      response_type: String(options.response_type || 'token'),
      override_default_response_type: String(Boolean(options.override_default_response_type)),
      extras: JSON.stringify(options.extras || {}),
      origin: location.origin,
      nonce: nonce,
      version: settings.version
    });
    var done = false;
    var watch = null;
    function finish(response) {
      if (done) return;
      done = true;
      window.removeEventListener('message', onMessage);
      if (watch) clearInterval(watch);
      callback(response);
    }
    function onMessage(event) {
      if (event.origin !== providerOrigin) return;
      var data = event.data;
      if (typeof data === 'string') {
        try { data = JSON.parse(data); } catch (e) { return; }
      }
      if (!data || data.type !== 'SIM_SDK_AUTH_RESPONSE' || data.nonce !== nonce) return;
      finish(data.authResponse ? { status: 'connected', authResponse: data.authResponse } : { status: 'unknown', authResponse: null });
    }
    window.addEventListener('message', onMessage);
    var popup = window.open(providerOrigin + '/dialog/oauth?' + params.toString(), 'embedded_signup_' + nonce, 'popup,width=640,height=720');
    if (!popup) {
      finish({ status: 'unknown', authResponse: null });
      return;
    }
    // closing the popup without finishing ends the login, as the real SDK does; the grace period lets a
    // message the dialog posted just before closing arrive first
    watch = setInterval(function () {
      if (!popup.closed) return;
      clearInterval(watch);
      watch = null;
      setTimeout(function () { finish({ status: 'unknown', authResponse: null }); }, 500);
    }, 250);
  }

  window.FB = {
    __simulated: true,
    init: function (opts) {
      opts = opts || {};
      if (!opts.appId) throw new Error('FB.init() requires appId.');
      settings = { appId: String(opts.appId), version: String(opts.version || 'v21.0') };
    },
    login: login,
    getLoginStatus: function (callback) { callback({ status: 'unknown', authResponse: null }); }
  };
  if (typeof window.fbAsyncInit === 'function') setTimeout(window.fbAsyncInit, 0);
})();
`;
