// The protocol half of a two-file MCP server: index.js requires it, so the
// server starts only when its project folder is visible.
'use strict';

const tools = [{
  name: 'greet',
  description: 'Greets someone by name.',
  inputSchema: {type: 'object', properties: {name: {type: 'string', description: 'Who to greet'}}, required: ['name']},
}];

function handle(msg) {
  switch (msg.method) {
    case 'initialize':
      return {result: {
        protocolVersion: (msg.params && msg.params.protocolVersion) || '2025-06-18',
        capabilities: {tools: {}},
        serverInfo: {name: 'local-notes-server', version: '0.1.0'},
      }};
    case 'ping':
      return {result: {}};
    case 'tools/list':
      return {result: {tools}};
    case 'tools/call': {
      const p = msg.params || {};
      if (p.name !== 'greet') {
        return {error: {code: -32602, message: `Unknown tool "${p.name}"; the only tool is "greet"`}};
      }
      const name = p.arguments && p.arguments.name;
      if (typeof name !== 'string' || name === '') {
        return {result: {isError: true, content: [{type: 'text', text: 'Argument "name" is required and must be a non-empty string, e.g. {"name": "Ada"}'}]}};
      }
      return {result: {content: [{type: 'text', text: `Hello, ${name}!`}]}};
    }
    default:
      return {error: {code: -32601, message: `Method not found: ${msg.method}`}};
  }
}

module.exports = {handle};
