// PTX parser grammar. Tokens come from the hand-written lexer in lib/Lexer.cpp, which folds an
// instruction's dotted opcode into one OPCODE token, a predicate guard into one GUARD token and a flat
// numeric initializer into one INIT_LIST token, so the parser sees few tokens per statement. Function
// bodies are cut out of the module by the lexer (one BODY token) and parsed on their own with
// `functionBody`, lazily and in parallel. Every decision below is LL(1) or LL(2), so SLL prediction
// succeeds on valid input.
parser grammar PtxParser;

tokens {
  VERSION, TARGET, ADDRESS_SIZE, ENTRY, FUNC, LINKAGE, SPACE, TYPE, VEC, ALIGN, PTR, ATTRIBUTE,
  ALIAS, PRAGMA, CALLPROTOTYPE, BRANCHTARGETS, CALLTARGETS, DOTNAME,
  FILE_LINE, LOC_LINE, SECTION_BLOCK, BODY,
  OPCODE, GUARD, LABEL_DEF, REGISTER, IDENT, UNDERSCORE, INT, FLOAT, STRING, INIT_LIST,
  BLOCK_OPEN, BLOCK_CLOSE, LBRACE, RBRACE, LPAREN, RPAREN, LBRACK, RBRACK, LT, GT,
  COMMA, SEMI, PIPE, EQUALS, PLUS, MINUS, STAR, SLASH, PERCENT, SHL, SHR, AMP, CARET, TILDE, BANG,
  ERROR_CHAR
}

// ---- module level (the lexer replaces each function body by BODY) ----
module : moduleItem* EOF ;

moduleItem
  : VERSION (FLOAT | INT)
  | TARGET IDENT (COMMA IDENT)*
  | ADDRESS_SIZE INT
  | variableDecl SEMI
  | functionDecl
  | ALIAS IDENT COMMA IDENT SEMI
  | pragma
  | FILE_LINE
  | LOC_LINE
  | SECTION_BLOCK
  ;

functionDecl
  : LINKAGE* (ENTRY | FUNC) attribute? (LPAREN paramList? RPAREN)? IDENT (LPAREN paramList? RPAREN)?
    functionAttribute* (BODY | SEMI)
  ;

functionAttribute : DOTNAME (INT (COMMA INT)*)? | pragma ;

paramList : paramDecl (COMMA paramDecl)* ;
paramDecl : SPACE declQualifier* declarator ;

variableDecl : LINKAGE* SPACE declQualifier* declarator (COMMA declarator)* ;

declQualifier
  : ALIGN INT
  | attribute
  | VEC
  | TYPE
  | PTR
  | SPACE
  ;

// `.attribute(.managed)`, `.attribute(.unified(uuid1, uuid2))`
attribute : ATTRIBUTE LPAREN attributeItem (COMMA attributeItem)* RPAREN ;
attributeItem : DOTNAME (LPAREN INT COMMA INT RPAREN)? ;

declarator
  : (IDENT | REGISTER | UNDERSCORE) (LT INT GT)? arrayDim* (EQUALS initializer)?
  ;
arrayDim : LBRACK INT? RBRACK ;

initializer
  : INIT_LIST
  | LBRACE (initializer (COMMA initializer)*)? RBRACE
  | IDENT EQUALS (IDENT | INT)
  | expr
  ;

pragma : PRAGMA STRING (COMMA STRING)* SEMI ;

// ---- function bodies ----
functionBody : BLOCK_OPEN statement* BLOCK_CLOSE EOF ;

statement
  : GUARD? OPCODE (operand ((COMMA | PIPE) operand)*)? SEMI // an instruction
  | LABEL_DEF labeledDirective?
  | variableDecl SEMI
  | BLOCK_OPEN statement* BLOCK_CLOSE
  | pragma
  | LOC_LINE
  | FILE_LINE
  | SECTION_BLOCK
  ;

labeledDirective
  : CALLPROTOTYPE (LPAREN paramList? RPAREN)? UNDERSCORE (LPAREN paramList? RPAREN)?
    functionAttribute* SEMI
  | BRANCHTARGETS IDENT (COMMA IDENT)* SEMI
  | CALLTARGETS IDENT (COMMA IDENT)* SEMI
  ;

// Expressions are flat sequences of prefix operators, atoms and binary operators, written inline
// (no sub-rules for the common atoms) so that a simple operand costs one parse-tree node; the IR
// builder applies precedence. Prefix: - + ~ !  Binary: + - * / % << >> & ^
// A parenthesised list is tried before an expression so that `(retval0)` is a list; `(1 << 4) + 2`
// is an expression because of what follows the ')'.
operand
  : LPAREN (operand (COMMA operand)*)? RPAREN
  | (MINUS | PLUS | TILDE | BANG)*
    (REGISTER | FLOAT | INT atomSuffix? | IDENT atomSuffix? | LPAREN expr RPAREN)
    ((PLUS | MINUS | STAR | SLASH | PERCENT | SHL | SHR | AMP | CARET) (MINUS | PLUS | TILDE | BANG)*
     (REGISTER | FLOAT | INT atomSuffix? | IDENT atomSuffix? | LPAREN expr RPAREN))*
  | LBRACE (operand (COMMA operand)*)? RBRACE
  | LBRACK expr (COMMA operand)* RBRACK DOTNAME?
  | UNDERSCORE
  ;

expr
  : (MINUS | PLUS | TILDE | BANG)*
    (REGISTER | FLOAT | INT atomSuffix? | IDENT atomSuffix? | LPAREN expr RPAREN)
    ((PLUS | MINUS | STAR | SLASH | PERCENT | SHL | SHR | AMP | CARET) (MINUS | PLUS | TILDE | BANG)*
     (REGISTER | FLOAT | INT atomSuffix? | IDENT atomSuffix? | LPAREN expr RPAREN))*
  ;

// `generic(sym)`, `0xFF00(sym)` (initializers) and `sym[5]` (the address of an array element).
atomSuffix : LPAREN expr (COMMA expr)* RPAREN | LBRACK INT RBRACK ;
