package engines

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
)

// incomplete returns why the engine file at path, of size size, cannot be loaded yet, or
// "" when it can: a file still being copied into the plugins folder is never started.
// An executable is complete when it is an ELF file whose program segments and sections
// all lie within its size (a copy paused halfway has a valid header but ends early); a
// script (#!) cannot be told complete, which is why operators copy then rename. Any
// other file is left to load, which refuses it.
func incomplete(path string, size int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("cannot be opened: %v", err)
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return "is shorter than an executable's header"
	}
	if !bytes.Equal(magic, []byte(elf.ELFMAG)) {
		return "" // a script, or not a program at all: load says which
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Sprintf("is not a complete ELF file: %v", err)
	}
	for _, p := range ef.Progs {
		if end := p.Off + p.Filesz; end > uint64(size) {
			return fmt.Sprintf("ends at byte %d, before its segment's end at byte %d", size, end)
		}
	}
	for _, s := range ef.Sections {
		if s.Type == elf.SHT_NOBITS {
			continue
		}
		if end := s.Offset + s.FileSize; end > uint64(size) {
			return fmt.Sprintf("ends at byte %d, before its section %s's end at byte %d", size, s.Name, end)
		}
	}
	return ""
}
