import jsep from "jsep";

/**
 * The expression language of `calculate` and `if`: numbers, strings, booleans, variables by name,
 * arithmetic, comparison, `&&`, `||`, `!`, `a ? b : c` and a fixed list of functions. It has no
 * member access, no assignment and no loops, so an expression of at most 1,000 characters runs in
 * bounded time; the evaluator walks the parsed tree itself (no `eval`).
 */

export const MAX_EXPRESSION_LENGTH = 1000;

type Value = number | string | boolean | null;
type Fn = (...args: Value[]) => Value;

const num = (v: Value): number => {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v === null) return 0;
  const n = Number(String(v).replace(/,/g, "").trim());
  if (Number.isNaN(n)) throw new ExpressionError(`"${v}" is not a number`);
  return n;
};
const str = (v: Value): string => (v === null ? "" : String(v));

export const FUNCTIONS: Record<string, { fn: Fn; help: string }> = {
  abs: { fn: (x) => Math.abs(num(x)), help: "abs(x): absolute value" },
  round: {
    fn: (x, digits = 0) => {
      const f = 10 ** num(digits);
      return Math.round(num(x) * f) / f;
    },
    help: "round(x, digits?): rounded to digits decimals (default 0)",
  },
  floor: { fn: (x) => Math.floor(num(x)), help: "floor(x)" },
  ceil: { fn: (x) => Math.ceil(num(x)), help: "ceil(x)" },
  min: { fn: (...xs) => Math.min(...xs.map(num)), help: "min(a, b, …)" },
  max: { fn: (...xs) => Math.max(...xs.map(num)), help: "max(a, b, …)" },
  sqrt: { fn: (x) => Math.sqrt(num(x)), help: "sqrt(x)" },
  pow: { fn: (x, y) => num(x) ** num(y), help: "pow(x, y)" },
  number: { fn: (x) => num(x), help: 'number(x): "1,470" → 1470' },
  text: { fn: (x) => str(x), help: "text(x): x as a string" },
  length: { fn: (x) => str(x).length, help: "length(s): characters in s" },
  lower: { fn: (x) => str(x).toLowerCase(), help: "lower(s)" },
  upper: { fn: (x) => str(x).toUpperCase(), help: "upper(s)" },
  trim: { fn: (x) => str(x).trim(), help: "trim(s)" },
  contains: { fn: (s, part) => str(s).includes(str(part)), help: "contains(s, part)" },
  startsWith: { fn: (s, part) => str(s).startsWith(str(part)), help: "startsWith(s, part)" },
  percent: {
    fn: (part, whole) => (num(whole) === 0 ? 0 : (num(part) / num(whole)) * 100),
    help: "percent(part, whole): part as a percentage of whole",
  },
};

const BINARY = new Set(["+", "-", "*", "/", "%", "==", "!=", "===", "!==", "<", ">", "<=", ">=", "&&", "||"]);
const UNARY = new Set(["-", "+", "!"]);

export class ExpressionError extends Error {}

export type ParsedExpression = { ast: jsep.Expression; identifiers: string[] };

/** Parses and checks an expression; throws ExpressionError naming what is not allowed. */
export function parseExpression(source: string): ParsedExpression {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let ast: jsep.Expression;
  try {
    ast = jsep(source);
  } catch (error) {
    throw new ExpressionError((error as Error).message);
  }
  const identifiers = new Set<string>();
  const visit = (node: jsep.Expression, depth: number): void => {
    if (depth > 64) throw new ExpressionError("nested too deeply");
    switch (node.type) {
      case "Literal":
        return;
      case "Identifier":
        identifiers.add(String(node.name));
        return;
      case "UnaryExpression":
        if (!UNARY.has(String(node.operator))) throw new ExpressionError(`operator ${node.operator} is not allowed`);
        visit(node.argument as jsep.Expression, depth + 1);
        return;
      case "BinaryExpression":
        if (!BINARY.has(String(node.operator))) throw new ExpressionError(`operator ${node.operator} is not allowed`);
        visit(node.left as jsep.Expression, depth + 1);
        visit(node.right as jsep.Expression, depth + 1);
        return;
      case "ConditionalExpression":
        visit(node.test as jsep.Expression, depth + 1);
        visit(node.consequent as jsep.Expression, depth + 1);
        visit(node.alternate as jsep.Expression, depth + 1);
        return;
      case "CallExpression": {
        const callee = node.callee as jsep.Expression;
        const name = callee.type === "Identifier" ? String(callee.name) : "";
        if (!Object.hasOwn(FUNCTIONS, name)) {
          throw new ExpressionError(
            `unknown function ${name || "(expression)"}; known: ${Object.keys(FUNCTIONS).join(", ")}`,
          );
        }
        for (const arg of node.arguments as jsep.Expression[]) visit(arg, depth + 1);
        return;
      }
      case "MemberExpression":
        throw new ExpressionError("member access (a.b or a[b]) is not allowed");
      default:
        throw new ExpressionError(`${node.type} is not allowed`);
    }
  };
  visit(ast, 0);
  return { ast, identifiers: [...identifiers] };
}

/** Evaluates a parsed expression against variables; throws ExpressionError on unknown names. */
export function evaluate(parsed: ParsedExpression, variables: Record<string, unknown>): Value {
  const run = (node: jsep.Expression): Value => {
    switch (node.type) {
      case "Literal":
        return node.value as Value;
      case "Identifier": {
        const name = String(node.name);
        if (!Object.hasOwn(variables, name)) throw new ExpressionError(`unknown variable ${name}`);
        const value = variables[name];
        return typeof value === "number" || typeof value === "string" || typeof value === "boolean"
          ? value
          : value === null || value === undefined
            ? null
            : String(value);
      }
      case "UnaryExpression": {
        const v = run(node.argument as jsep.Expression);
        return node.operator === "!" ? !v : node.operator === "-" ? -num(v) : num(v);
      }
      case "BinaryExpression":
        return binary(String(node.operator), node.left as jsep.Expression, node.right as jsep.Expression);
      case "ConditionalExpression":
        return run(node.test as jsep.Expression)
          ? run(node.consequent as jsep.Expression)
          : run(node.alternate as jsep.Expression);
      case "CallExpression": {
        const name = String((node.callee as jsep.Expression).name);
        return FUNCTIONS[name].fn(...(node.arguments as jsep.Expression[]).map(run));
      }
      default:
        throw new ExpressionError(`${node.type} is not allowed`);
    }
  };
  const binary = (op: string, l: jsep.Expression, r: jsep.Expression): Value => {
    if (op === "&&") return run(l) ? run(r) : false;
    if (op === "||") return run(l) || run(r);
    const a = run(l);
    const b = run(r);
    switch (op) {
      case "+":
        return typeof a === "string" || typeof b === "string" ? str(a) + str(b) : num(a) + num(b);
      case "-":
        return num(a) - num(b);
      case "*":
        return num(a) * num(b);
      case "/":
        return num(a) / num(b);
      case "%":
        return num(a) % num(b);
      case "==":
      case "===":
        return compare(a, b) === 0;
      case "!=":
      case "!==":
        return compare(a, b) !== 0;
      case "<":
        return compare(a, b) < 0;
      case ">":
        return compare(a, b) > 0;
      case "<=":
        return compare(a, b) <= 0;
      default:
        return compare(a, b) >= 0;
    }
  };
  return run(parsed.ast);
}

/** Numbers compare as numbers (a captured "1,470" equals 1470); otherwise as strings. */
function compare(a: Value, b: Value): number {
  const na = typeof a === "number" ? a : Number(String(a ?? "").replace(/,/g, ""));
  const nb = typeof b === "number" ? b : Number(String(b ?? "").replace(/,/g, ""));
  if (!Number.isNaN(na) && !Number.isNaN(nb) && a !== "" && b !== "") return na - nb;
  return str(a) < str(b) ? -1 : str(a) > str(b) ? 1 : 0;
}
