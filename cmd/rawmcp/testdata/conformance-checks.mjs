// The server-side check ids of the official MCP conformance suite, read from
// its own published code (dist/index.js of @modelcontextprotocol/conformance)
// for conformance-checks.sh; prints the list the probe's map of the suite
// (wire/client/probe/conformance_test.go) is held to.
//
//   node conformance-checks.mjs BUNDLE SERVER_LIST AUTHORIZATION_LIST
//
// SERVER_LIST and AUTHORIZATION_LIST are what the suite's own `list --server`
// and `list --authorization` print: its scenarios, each with the revisions
// it applies to. The bundle is parsed (acorn) and its scopes resolved
// (eslint-scope); a check is an object literal with id, name and
// description members. Its id is evaluated: a string, a template whose
// parts come from constants, loop variables over literal arrays, or string
// methods of those, or a parameter, followed to every call that passes it.
// Each id goes to the scenarios whose class holds its literal or reaches
// the function holding it (never through another scenario's class, nor
// a list of scenarios); the ids the CLI's server and authorization
// commands add to every scenario's checks (a timeout, the wire-schema
// checks) go to "(server-runner)" and "(authorization-runner)".
// An id this cannot evaluate stops the script with its line: a new suite
// version cannot leave a check out silently. The one id the runner takes
// from outside the code, a scenario's own name when the scenario crashes,
// is printed as the placeholder <scenario>.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const acorn = require('acorn');
const { analyze } = require('eslint-scope');

const [bundlePath, serverList, authorizationList] = process.argv.slice(2);
const source = readFileSync(bundlePath, 'utf8').replace(/^#!.*/, '');
// eslint-scope reads the nodes' ranges.
const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, ranges: true });
const scopes = analyze(ast, { ecmaVersion: 2022, sourceType: 'module' });

function fail(node, why) {
  const at = node && node.loc ? ` at line ${node.loc.start.line}:${node.loc.start.column}` : '';
  const text = node ? ': ' + source.slice(node.start, Math.min(node.end, node.start + 160)).replace(/\s+/g, ' ') : '';
  throw new Error(`conformance-checks: ${why}${at}${text}`);
}

// walk calls visit on node and every node below it, depth first; visit
// returning false skips what is below.
function walk(node, visit) {
  if (visit(node) === false) return;
  for (const key of Object.keys(node)) {
    if (key === 'loc') continue;
    const v = node[key];
    for (const child of Array.isArray(v) ? v : [v]) if (child && typeof child.type === 'string') walk(child, visit);
  }
}

// Parents and resolved references, for walking up and following names.
const parent = new Map([[ast, null]]);
walk(ast, (n) => {
  for (const key of Object.keys(n)) {
    if (key === 'loc') continue;
    const v = n[key];
    for (const child of Array.isArray(v) ? v : [v]) if (child && typeof child.type === 'string') parent.set(child, n);
  }
});
const resolved = new Map();
for (const scope of scopes.scopes) {
  for (const ref of scope.references) if (ref.resolved) resolved.set(ref.identifier, ref.resolved);
}

function keyOf(p) {
  if (p.type !== 'Property' || p.computed) return undefined;
  return p.key.type === 'Identifier' ? p.key.name : p.key.value;
}
function member(obj, name) {
  return obj.properties.find((p) => keyOf(p) === name);
}

// Scenario classes: every class whose constructor sets this.name (a
// scenario's name; some are built from a constructor argument), and by
// name those whose name is a plain string.
const classes = new Map();
const scenarioClasses = new Set();
walk(ast, (node) => {
  if (node.type !== 'ClassExpression' && node.type !== 'ClassDeclaration') return;
  const ctor = node.body.body.find((m) => m.kind === 'constructor');
  if (!ctor) return;
  walk(ctor.value.body, (n) => {
    if (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression' || n.type.startsWith('Class')) return false;
    if (n.type !== 'AssignmentExpression' || n.left.type !== 'MemberExpression' || n.left.object.type !== 'ThisExpression' ||
      n.left.property.name !== 'name') return;
    scenarioClasses.add(node);
    const r = n.right;
    const name = r.type === 'Literal' ? r.value : r.type === 'TemplateLiteral' && r.expressions.length === 0 ? r.quasis[0].value.cooked : undefined;
    if (name === undefined) return;
    if (classes.has(name)) fail(node, `two classes name themselves ${name}`);
    classes.set(name, node);
  });
});

// The function a parameter belongs to, and where it sits in the list.
function paramIndex(fn, id) {
  for (let i = 0; i < fn.params.length; i++) {
    let p = fn.params[i];
    if (p.type === 'AssignmentPattern') p = p.left;
    if (p === id) return i;
  }
  return -1;
}

// callsOf returns every call of fn: it must be bound to a name and only
// ever called through it, else a value it passes on could be missed.
function callsOf(fn) {
  let variable;
  const up = parent.get(fn);
  if (fn.type === 'FunctionDeclaration') variable = scopes.getDeclaredVariables(fn).find((v) => v.defs.some((d) => d.type === 'FunctionName'));
  else if (up.type === 'VariableDeclarator' && up.init === fn) variable = scopes.getDeclaredVariables(up)[0];
  else if (up.type === 'AssignmentExpression' && up.right === fn && up.left.type === 'Identifier') variable = resolved.get(up.left);
  if (up.type === 'MethodDefinition' && !up.computed && !up.static) return methodCalls(up);
  if (!variable) fail(fn, 'a check id is a parameter of a function that is not bound to a name');
  const calls = [];
  for (const ref of variable.references) {
    const at = parent.get(ref.identifier);
    if (at.type === 'CallExpression' && at.callee === ref.identifier) calls.push(at);
    else if (!(at.type === 'VariableDeclarator' && at.id === ref.identifier) && !(at.type === 'AssignmentExpression' && at.left === ref.identifier)) {
      fail(at, 'a function whose parameter is a check id is used other than by a call');
    }
  }
  return calls;
}

// methodCalls are the calls this.name(...) of a method inside its class;
// any other use of the name leaves the method's callers unknown.
function methodCalls(method) {
  let cls = parent.get(method);
  while (cls.type !== 'ClassExpression' && cls.type !== 'ClassDeclaration') cls = parent.get(cls);
  const name = method.key.name;
  const calls = [];
  walk(cls.body, (n) => {
    if (n.type !== 'MemberExpression' || n.computed || n.property.name !== name) return;
    const call = parent.get(n);
    if (n.object.type !== 'ThisExpression' || call.type !== 'CallExpression' || call.callee !== n) fail(n, 'a method whose parameter is a check id used other than by this.' + name + '(...)');
    calls.push(call);
  });
  return calls;
}

function bindingOf(id) {
  const v = resolved.get(id);
  if (!v || v.defs.length !== 1) fail(id, 'a name that resolves to no single definition');
  return { variable: v, def: v.defs[0] };
}

// writesBeyondInit: a let reassigned later has no one value to read.
function reassigned(variable) {
  return variable.references.some((r) => r.isWrite() && !(parent.get(r.identifier).type === 'VariableDeclarator'));
}

// values evaluates an expression to the strings it can hold. A parameter
// takes what the calls inside reached pass it (reached: is a call site in
// the code the scenario runs?).
function values(expr, reached) {
  switch (expr.type) {
    case 'Literal':
      if (typeof expr.value !== 'string') fail(expr, 'a check id part that is not a string');
      return [expr.value];
    case 'TemplateLiteral': {
      let out = [expr.quasis[0].value.cooked];
      expr.expressions.forEach((e, i) => {
        const parts = values(e, reached);
        out = out.flatMap((o) => parts.map((p) => o + p + expr.quasis[i + 1].value.cooked));
      });
      return out;
    }
    case 'BinaryExpression': {
      if (expr.operator !== '+') fail(expr, 'a check id built with ' + expr.operator);
      const right = values(expr.right, reached);
      return values(expr.left, reached).flatMap((l) => right.map((r) => l + r));
    }
    case 'ConditionalExpression':
      return [...values(expr.consequent, reached), ...values(expr.alternate, reached)];
    case 'CallExpression': {
      const c = expr.callee;
      if (c.type !== 'MemberExpression' || c.computed) fail(expr, 'a check id from a call');
      const args = expr.arguments.map((a) => values(a, reached));
      const one = (i) => {
        if (args[i] === undefined || args[i].length !== 1) fail(expr, 'a string method with an argument of no one value');
        return args[i][0];
      };
      return values(c.object, reached).map((v) => {
        switch (c.property.name) {
          case 'toLowerCase': return v.toLowerCase();
          case 'toUpperCase': return v.toUpperCase();
          case 'replace': return v.replace(one(0), one(1));
          case 'replaceAll': return v.replaceAll(one(0), one(1));
        }
        fail(expr, 'a check id from the string method ' + c.property.name);
      });
    }
    case 'MemberExpression': {
      if (expr.computed) fail(expr, 'a check id from a computed member');
      return objects(expr.object, reached).flatMap((obj) => {
        const p = member(obj, expr.property.name);
        if (!p) fail(obj, `an object without the member ${expr.property.name} a check id reads`);
        return values(p.value, reached);
      });
    }
    case 'Identifier': {
      const { variable, def } = bindingOf(expr);
      if (def.type === 'Parameter') {
        return arguments_(def, expr, reached).flatMap((a) => values(a, reached));
      }
      if (def.type === 'Variable') {
        const loop = parent.get(def.parent);
        if (loop && loop.type === 'ForOfStatement' && loop.left === def.parent) {
          return elements(loop.right).flatMap((e) => project(e, def.node.id, def.name, reached)).flatMap((e) => values(e, reached));
        }
        if (!def.node.init || reassigned(variable)) fail(expr, 'a check id from a variable with no one value');
        return values(def.node.init, reached);
      }
      fail(expr, 'a check id from a ' + def.type);
    }
  }
  fail(expr, 'a check id from a ' + expr.type);
}

// arguments_ are what the calls inside reached pass for a parameter (a
// callback's element: what the array it runs over holds).
function arguments_(def, expr, reached) {
  const i = paramIndex(def.node, def.name);
  if (i < 0) fail(expr, 'a check id from a destructured parameter');
  const over = iterated(def.node);
  if (over) {
    if (i !== 0) fail(expr, 'a check id from a callback parameter other than the element');
    return elements(over);
  }
  return callsOf(def.node).filter(reached).map((call) => {
    const arg = call.arguments[i];
    if (arg && arg.type === 'SpreadElement') fail(arg, 'a check id passed in a spread');
    if (arg) return arg;
    const p = def.node.params[i];
    if (p.type !== 'AssignmentPattern') fail(call, 'a call that leaves the check id out');
    return p.right;
  });
}

// iterated is the array a callback runs over (array.map(fn) and the like),
// undefined when fn is not such a callback.
function iterated(fn) {
  const call = parent.get(fn);
  if (call.type === 'CallExpression' && call.arguments[0] === fn && call.callee.type === 'MemberExpression' &&
    ['map', 'flatMap', 'forEach'].includes(call.callee.property.name)) return call.callee.object;
  return undefined;
}

// project is what pattern binds to name in element (a loop's
// for (let [a, b] of ...) or for (let {a} of ...)): the expressions it
// can be.
function project(element, pattern, name, reached) {
  if (pattern === name) return [element];
  if (pattern.type === 'ArrayPattern') {
    const i = pattern.elements.findIndex((p) => p && within(name, p));
    const items = elements(element);
    if (i < 0 || !items[i]) fail(element, 'a loop variable its array element does not hold');
    return project(items[i], pattern.elements[i], name, reached);
  }
  if (pattern.type === 'ObjectPattern') {
    const p = pattern.properties.find((p) => within(name, p.value));
    if (!p || p.computed) fail(pattern, 'a loop variable from a computed member');
    return objects(element, reached).flatMap((obj) => {
      const m = member(obj, p.key.name ?? p.key.value);
      if (!m) fail(obj, 'an object without the member a loop reads');
      return project(m.value, p.value, name, reached);
    });
  }
  fail(pattern, 'a loop variable bound by a ' + pattern.type);
}

// elements are the members of a literal array a loop runs over.
function elements(expr) {
  if (expr.type === 'ArrayExpression') {
    if (expr.elements.some((e) => !e)) fail(expr, 'a loop over an array with holes');
    return expr.elements.flatMap((e) => (e.type === 'SpreadElement' ? elements(e.argument) : [e]));
  }
  if (expr.type === 'Identifier') {
    const { variable, def } = bindingOf(expr);
    if (def.type !== 'Variable' || !def.node.init || reassigned(variable)) fail(expr, 'a loop over a name with no one value');
    return elements(def.node.init);
  }
  fail(expr, 'a loop over a ' + expr.type);
}

// objects are the object literals an expression can be.
function objects(expr, reached) {
  if (expr.type === 'ObjectExpression') return [expr];
  if (expr.type === 'Identifier') {
    const { variable, def } = bindingOf(expr);
    if (def.type === 'Variable') {
      const loop = parent.get(def.parent);
      if (loop && loop.type === 'ForOfStatement' && loop.left === def.parent) {
        return elements(loop.right).flatMap((e) => project(e, def.node.id, def.name, reached)).flatMap((e) => objects(e, reached));
      }
      if (def.node.init && !reassigned(variable)) return objects(def.node.init, reached);
    }
    if (def.type === 'Parameter') return arguments_(def, expr, reached).flatMap((a) => objects(a, reached));
  }
  fail(expr, 'a check id read from something other than an object literal');
}

// The ids the runner takes from outside the code, by the description of
// the check that carries them.
const placeholders = new Map([
  ['Failed to run scenario', '<scenario>'],
]);
function placeholder(check) {
  const d = member(check, 'description');
  const text = d && d.value.type === 'Literal' ? d.value.value : d && d.value.type === 'TemplateLiteral' ? source.slice(d.value.start + 1, d.value.end - 1) : '';
  return placeholders.get(text);
}

// checkLiterals are the object literals with id, name and description:
// the suite's checks.
const checkLiterals = [];
walk(ast, (n) => {
  if (n.type === 'ObjectExpression' && member(n, 'id') && member(n, 'name') && member(n, 'description')) checkLiterals.push(n);
});

// Units: the module's top-level declarations; a reference from one to
// another is an edge. A scenario reaches what its class references,
// transitively, but never another scenario's class or a list of them.
const unitOf = new Map(); // module-scope variable -> its declaring node
const moduleScope = scopes.scopes.find((s) => s.type === 'module');
for (const v of moduleScope.variables) {
  const d = v.defs[0];
  if (!d) continue;
  unitOf.set(v, d.type === 'FunctionName' || d.type === 'ClassName' ? d.node : d.type === 'Variable' ? d.node : undefined);
}
const unitOfClass = (c) => (parent.get(c).type === 'VariableDeclarator' ? parent.get(c) : c);
const scenarioNodes = new Set([...scenarioClasses].map(unitOfClass));
const edges = new Map();
function edgesOf(unit) {
  if (edges.has(unit)) return edges.get(unit);
  const out = new Set();
  walk(unit, (n) => {
    const v = n.type === 'Identifier' && resolved.get(n);
    if (v && unitOf.get(v) && unitOf.get(v) !== unit) out.add(unitOf.get(v));
  });
  edges.set(unit, out);
  return out;
}
// A registry (a list of scenarios) holds no code of the runner's: a
// scenario is reached from it only as a scenario.
const isRegistry = (unit) => !scenarioNodes.has(unit) && [...edgesOf(unit)].some((u) => scenarioNodes.has(u));
function reach(root) {
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length) {
    for (const next of edgesOf(queue.shift())) {
      if (seen.has(next) || scenarioNodes.has(next) || isRegistry(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
}
function within(node, unit) {
  for (let n = node; n; n = parent.get(n)) if (n === unit) return true;
  return false;
}

// The runner's root: the action of the CLI's server command.
function commandAction(name) {
  let action;
  walk(ast, (n) => {
    if (n.type !== 'CallExpression' || n.callee.type !== 'MemberExpression' || n.callee.property.name !== 'action') return;
    for (let o = n.callee.object; o.type === 'CallExpression' && o.callee.type === 'MemberExpression'; o = o.callee.object) {
      const arg = o.arguments[0];
      if (o.callee.property.name === 'command' && arg && (arg.type === 'Literal' ? arg.value : arg.type === 'TemplateLiteral' && arg.quasis[0].value.cooked) === name) {
        action = n.arguments[0];
      }
    }
  });
  if (!action) fail(null, `no action for the command ${name}`);
  return action;
}

function listed(file) {
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = line.match(/^\s+- (\S+) \[([^\]]*)\]$/);
    if (m) out.push({ name: m[1], revisions: m[2] });
  }
  if (out.length === 0) fail(null, `no scenarios in ${file}`);
  return out;
}

const lines = [];
function emit(role, scenario, revisions, root) {
  const units = [...reach(root)];
  const reached = (node) => units.some((u) => within(node, u));
  const ids = new Set();
  for (const check of checkLiterals) {
    if (!reached(check)) continue;
    const ph = placeholder(check);
    let got;
    try {
      got = ph ? [ph] : values(member(check, 'id').value, reached);
    } catch (e) {
      e.message += ` (in the checks of ${scenario})`;
      throw e;
    }
    for (const id of got) ids.add(id);
  }
  lines.push(`scenario ${scenario} ${role} ${revisions}`);
  for (const id of [...ids].sort()) lines.push(`check ${scenario} ${id}`);
}
for (const [role, file] of [['server', serverList], ['authorization', authorizationList]]) {
  for (const s of listed(file)) {
    const cls = classes.get(s.name);
    if (!cls) fail(null, `no class names itself ${s.name}`);
    emit(role, s.name, s.revisions, unitOfClass(cls));
  }
  emit('runner', `(${role}-runner)`, 'all', commandAction(role));
}
console.log(lines.join('\n'));
