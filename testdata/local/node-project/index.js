#!/usr/bin/env node
'use strict';
const readline = require('readline');
const {handle} = require('./lib');

readline.createInterface({input: process.stdin}).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32700, message: 'Parse error: ' + e.message}}) + '\n');
    return;
  }
  if (msg.id === undefined || msg.id === null) return; // a notification
  process.stdout.write(JSON.stringify(Object.assign({jsonrpc: '2.0', id: msg.id}, handle(msg))) + '\n');
});
