// Builds the SDK for use outside its source tree:
//   node build.mjs                  dist/*.js: a plain transpile of src/*.ts (types are stripped and the
//                                   type-only imports of the server's schemas vanish), so the
//                                   JavaScript depends on nothing but the platform;
//   node build.mjs --declarations   also dist/*.d.ts, with dist/types.d.ts GENERATED from the server's
//                                   schemas: every wire type src/types.ts exports (its own and those it
//                                   re-exports from its parts, src/types-*.ts) expanded to a plain type
//                                   literal, so the published declarations are self-contained (no
//                                   TypeBox, no server sources) and still exactly the server's shapes.
//   --out <dir>                     writes there instead of dist/.
// `ensureBuilt()` rebuilds the JavaScript only when a source is newer; the service's CLI calls it
// before loading the remote commands.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, 'src');
const require = createRequire(import.meta.url);

function sources() {
  return readdirSync(srcDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

/** src/types.ts's parts: type-only, gathered into dist/types.d.ts, so nothing of them is emitted alone. */
const typesPart = (file) => /^types-.+\.(d\.)?ts$/.test(file);

function newestSource() {
  return Math.max(statSync(join(here, 'build.mjs')).mtimeMs, ...sources().map((f) => statSync(join(srcDir, f)).mtimeMs));
}

export function build(outDir = join(here, 'dist')) {
  const ts = require('typescript');
  mkdirSync(outDir, { recursive: true });
  for (const file of sources().filter((f) => !typesPart(f))) {
    const text = readFileSync(join(srcDir, file), 'utf8');
    const { outputText, diagnostics } = ts.transpileModule(text, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, sourceMap: false },
    });
    if (diagnostics?.length) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
    writeFileSync(join(outDir, file.replace(/\.ts$/, '.js')), outputText);
  }
}

/** Builds dist/ when it is missing or older than a source. */
export function ensureBuilt() {
  const marker = join(here, 'dist', 'index.js');
  if (existsSync(marker) && statSync(marker).mtimeMs >= newestSource()) return;
  build();
}

/** A type, written out in full: object types property by property, unions and arrays member by member. */
function printer(ts, checker) {
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType | ts.TypeFormatFlags.InTypeAlias;
  const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
  const print = (type, depth = 0) => {
    if (depth > 20) throw new Error(`type nests too deeply: ${checker.typeToString(type)}`);
    if (type.isUnion()) {
      const parts = [...new Set(type.types.map((t) => print(t, depth + 1)))];
      // `true | false` as TypeScript writes it
      const bool = parts.includes('true') && parts.includes('false');
      const rest = bool ? parts.filter((p) => p !== 'true' && p !== 'false').concat('boolean') : parts;
      return rest.map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
    }
    if (checker.isArrayType(type)) {
      const [item] = checker.getTypeArguments(type);
      const inner = print(item, depth + 1);
      return /[|&]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
    }
    const isObject = (type.flags & ts.TypeFlags.Object) !== 0 || type.isIntersection();
    if (!isObject || type.getCallSignatures().length > 0) return checker.typeToString(type, undefined, flags);
    const members = [];
    for (const info of checker.getIndexInfosOfType(type)) {
      members.push(`[key: ${checker.typeToString(info.keyType, undefined, flags)}]: ${print(info.type, depth + 1)}`);
    }
    for (const property of checker.getPropertiesOfType(type)) {
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      let propertyType = checker.getTypeOfSymbol(property);
      if (optional) propertyType = removeUndefined(propertyType);
      members.push(`${key(property.name)}${optional ? '?' : ''}: ${print(propertyType, depth + 1)}`);
    }
    return members.length === 0 ? '{}' : `{ ${members.join('; ')} }`;
  };
  // An optional property's `| undefined`, left out (the `?` says it); a stand-in union for the printer.
  const removeUndefined = (type) =>
    type.isUnion() ? { isUnion: () => true, types: type.types.filter((t) => (t.flags & ts.TypeFlags.Undefined) === 0) } : type;
  return print;
}

/**
 * dist/types.d.ts: every type src/types.ts exports, its own and those it re-exports from its parts,
 * expanded (see the header of this file), in the order types.ts gives them.
 */
function generateTypes(ts, outDir) {
  const file = join(srcDir, 'types.ts');
  const config = ts.getParsedCommandLineOfConfigFile(join(here, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram([file], config.options);
  const checker = program.getTypeChecker();
  const print = printer(ts, checker);
  const lines = [
    "// Generated by build.mjs from the Sightline server's TypeBox schemas (src/features/*/*.schemas.ts).",
    '// Do not edit: change the schemas, then rebuild.',
    '',
  ];
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)))) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const statement = symbol.declarations?.find((d) => ts.isTypeAliasDeclaration(d));
    if (!statement) throw new Error(`src/types.ts exports ${exported.name}, which is not a type alias`);
    const params = statement.typeParameters ? `<${statement.typeParameters.map((p) => p.name.text).join(', ')}>` : '';
    const docs = ts
      .getJSDocCommentsAndTags(statement)
      .map((d) => d.getText(statement.getSourceFile()))
      .join('\n');
    if (docs) lines.push(docs);
    lines.push(`export type ${exported.name}${params} = ${print(checker.getTypeAtLocation(statement.name))};`, '');
  }
  writeFileSync(join(outDir, 'types.d.ts'), lines.join('\n'));
}

export function declarations(outDir = join(here, 'dist')) {
  const ts = require('typescript');
  const temp = mkdtempSync(join(tmpdir(), 'sightline-client-dts-'));
  try {
    const config = ts.getParsedCommandLineOfConfigFile(join(here, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: temp });
    const emitted = program.emit();
    const errors = ts.getPreEmitDiagnostics(program).concat(emitted.diagnostics);
    if (errors.length > 0)
      throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => '\n' }));
    // Only the SDK's own declarations; they reach the server only through ./types.js, generated below.
    const own = join(temp, 'packages', 'client', 'src');
    mkdirSync(outDir, { recursive: true });
    for (const file of readdirSync(own)) if (file !== 'types.d.ts' && !typesPart(file)) writeFileSync(join(outDir, file), readFileSync(join(own, file)));
    generateTypes(ts, outDir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf('--out');
  const outDir = at === -1 ? join(here, 'dist') : resolve(process.argv[at + 1]);
  build(outDir);
  if (process.argv.includes('--declarations')) declarations(outDir);
  process.stdout.write(`built ${outDir}\n`);
}
