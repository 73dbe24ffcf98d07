//! The formatter.

#[cfg(test)]
mod probe {
    #[test]
    fn spans() {
        let cases = [
            "a: 1\n# c\n\nsources:\n  - x\n  - \"y\"\n  - 'z' # c2\n\n# before b\nb: |\n  hi\n\n  there\n\n# cmt\nc: >+\n  k\n\nd: [a, \"b\", 'c'] # tail\ne:\n- p\n- q\nf: {x: 1}\ng: plain\n  multi\n# end\n\n",
            "t: &x foo\nu: *x\nv: !!str 12\nw: [&y a, *y]\n",
        ];
        for src in cases {
            let doc = crate::yaml::parse(src, 0).unwrap();
            let root = doc.root.unwrap();
            println!("root span {:?}", root.span);
            for e in root.entries().unwrap() {
                println!("key {:?} {:?} value {:?} {:?}", &src[e.key.span.clone()], e.key.span, &src[e.value.span.clone()], e.value.span);
                if let crate::yaml::Value::Seq { items, .. } = &e.value.value {
                    for i in items { println!("   item {:?} {:?}", &src[i.span.clone()], i.span); }
                }
                if let crate::yaml::Value::Map { entries, .. } = &e.value.value {
                    for i in entries { println!("   k {:?} v {:?}", &src[i.key.span.clone()], &src[i.value.span.clone()]); }
                }
            }
        }
    }
}
