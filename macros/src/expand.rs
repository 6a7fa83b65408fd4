//! The expansion: a struct and a const named like the function (dropshot's trick: a braced
//! struct lives only in the type namespace, so the const can take the value name), the function
//! itself as `run`, and the `Tool` impl.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Error, Ident, ItemFn, LitStr};

use crate::attr::{self, OutputSchema, TaskSupport, ToolAttr};
use crate::doc;
use crate::signature::{self, Checked};

pub(crate) fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    let attr = attr::parse(attr, &mut errors);
    let func: ItemFn = match syn::parse2(item) {
        Ok(func) => func,
        Err(e) => {
            errors.push(Error::new(e.span(), "`#[tool]` goes on an `async fn`"));
            return compile_errors(errors);
        }
    };
    let description = doc::description(&func.attrs);
    if description.is_none() {
        errors.push(Error::new(func.sig.ident.span(), "a tool needs a doc comment: it becomes the tool's description"));
    }
    let sig = signature::check(&func.sig, &mut errors);
    if let Some(sig) = &sig
        && sig.args.is_none()
    {
        if let Some(route) = attr.rest.as_ref().filter(|r| !r.params.is_empty()) {
            errors.push(Error::new(
                route.lit.span(),
                "the route has path parameters but the tool takes no arguments to bind them to",
            ));
        }
        if let Some(body) = &attr.body {
            errors.push(Error::new(body.span(), "`body` names an argument field, but the tool takes no arguments"));
        }
    }
    match (description, sig) {
        (Some(description), Some(sig)) if errors.is_empty() => generate(attr, func, &description, sig),
        // No half-made tool, which would only add confusing errors; but the function as
        // written, so that its body is still checked and its imports still count as used. Out
        // of reach in a `const _`, except a method: it sits in an impl, which allows no `const _`.
        _ => {
            let errors = compile_errors(errors);
            let method = func.sig.receiver().is_some();
            let func = quote!(#[allow(dead_code)] #func);
            if method { quote!(#errors #func) } else { quote!(#errors const _: () = { #func };) }
        }
    }
}

fn compile_errors(errors: Vec<Error>) -> TokenStream {
    errors.into_iter().map(|e| e.to_compile_error()).collect()
}

fn generate(attr: ToolAttr, func: ItemFn, description: &str, sig: Checked) -> TokenStream {
    let ItemFn { attrs, vis, sig: mut run_sig, block } = func;
    let ident = run_sig.ident.clone();
    run_sig.ident = Ident::new("run", ident.span());
    let (docs, attrs): (Vec<_>, Vec<_>) = attrs.into_iter().partition(doc::is_doc);

    let name = attr.name.unwrap_or_else(|| LitStr::new(&ident.unraw().to_string(), ident.span()));
    let title = option(attr.title);
    let [read_only, destructive, idempotent, open_world] =
        [attr.read_only, attr.destructive, attr.idempotent, attr.open_world].map(|hint| match hint {
            Some(on) => quote!(::core::option::Option::Some(#on)),
            None => quote!(::core::option::Option::None),
        });
    let allow_unknown_args = attr.allow_unknown_args;
    let (timeout_ms, max_concurrent) = (option(attr.timeout_ms), option(attr.max_concurrent));
    let scopes = &attr.scopes;
    let deferred_task = attr.deferred_task;
    let task_support = match attr.task {
        None => quote!(::tooltable::tool::TaskSupport::Forbidden),
        Some(TaskSupport::Optional) => quote!(::tooltable::tool::TaskSupport::Optional),
        Some(TaskSupport::Required) => quote!(::tooltable::tool::TaskSupport::Required),
    };

    let args_ty = match &sig.args {
        Some(ty) => ty.to_token_stream(),
        None => quote!(::tooltable::__private::NoArgs),
    };

    // Each `{param}` and the body must be a field of the arguments: a field access spanned on
    // the attribute's string makes rustc's "no field" error point there.
    let mut fields = Vec::new();
    let rest = match &attr.rest {
        Some(route) => {
            fields.extend(route.params.iter().map(|p| Ident::new(p, route.lit.span())));
            fields.extend(attr.body.iter().map(|b| Ident::new(&b.value(), b.span())));
            let (method, path) = (&route.method, &route.path);
            let body = option(attr.body);
            let status = attr.status.unwrap_or(200);
            let location = option(attr.location);
            quote! {
                ::core::option::Option::Some(::tooltable::__private::StaticRestRoute {
                    method: #method,
                    path: #path,
                    body: #body,
                    status: #status,
                    location: #location,
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let field_checks = (!fields.is_empty()).then(|| {
        quote! {
            const _: () = {
                #[allow(unused)]
                fn __check(__args: &#args_ty) {
                    #(let _ = &__args.#fields;)*
                }
            };
        }
    });

    let output_schema = match attr.output {
        None => {
            let ty = &sig.output;
            quote!(::tooltable::__private::output_schema::<#ty>)
        }
        Some(OutputSchema::Type(ty)) => {
            quote!(::tooltable::__private::explicit_output_schema::<#ty>)
        }
        Some(OutputSchema::Expr(expr)) => quote! {{
            fn __output_schema() -> ::core::option::Option<::tooltable::__private::Value> {
                ::core::option::Option::Some(#expr)
            }
            __output_schema
        }},
    };

    // The error type's schema, when it has one (see `ErrorSchemaProbe`).
    let error_schema = {
        let ty = &sig.output;
        quote! {{
            fn __error_schema() -> ::core::option::Option<::tooltable::__private::Value> {
                #[allow(unused_imports)]
                use ::tooltable::__private::{NoErrorSchema as _, StatedErrorSchema as _};
                (&::tooltable::__private::ErrorSchemaProbe::<#ty>(::core::marker::PhantomData)).error_schema()
            }
            __error_schema
        }}
    };

    let input_schema = match &attr.input_schema {
        None => quote!(::tooltable::__private::input_schema::<#args_ty>),
        Some(expr) => quote! {{
            fn __input_schema() -> ::tooltable::__private::Value {
                #expr
            }
            __input_schema
        }},
    };

    // Without a context parameter the tool fits a table of any state. `__S`, not `S`,
    // so that it cannot shadow a user type named `S`.
    let (impl_generics, state) = match &sig.context {
        Some(cx) => (quote!(), cx.state.to_token_stream()),
        None => (quote!(<__S: ::core::marker::Send + ::core::marker::Sync + 'static>), quote!(__S)),
    };
    let (cx_param, cx_arg) = match &sig.context {
        Some(cx) if cx.by_ref => (quote!(__cx), quote!(&__cx,)),
        Some(_) => (quote!(__cx), quote!(__cx,)),
        None => (quote!(_), quote!()),
    };
    // Arguments are parsed even when there is no parameter: `NoArgs` refuses any. Every name the
    // expansion binds starts with `__`: a pattern like `Ok(a)` would match a const `a`, and each
    // tool is a const.
    let (args_binding, args_arg) = match &sig.args {
        Some(_) => (quote!(__args), quote!(__args)),
        None => (quote!(_), quote!()),
    };
    // Spanned on the return type, so that a non-`Result` return is reported there, as it is
    // for `output_schema::<#ty>` (otherwise the span runs from the fn name to the return type).
    // Both calls go through one function, so that a wrong return type is reported once.
    let rendered_call = |written: TokenStream| {
        quote_spanned! {sig.output.span()=>
            ::tooltable::__private::into_rendered(Self::run(#cx_arg #args_arg).await, #written)
        }
    };
    let into_result = rendered_call(quote!(false));
    let into_rendered = rendered_call(quote!(__written));

    // Spanned on the function's name so that an unused tool gets the dead-code warning.
    let const_item = quote_spanned! {ident.span()=>
        #vis const #ident: #ident = #ident {};
    };

    // Arguments read straight from their text, where the schema is the argument type's own.
    let read_text = match &attr.input_schema {
        Some(_) => quote!(),
        None => quote! {
            fn read_text(
                &self,
                __text: &str,
            ) -> ::core::option::Option<(::tooltable::__private::TypedArguments, usize)> {
                ::tooltable::__private::parse_text::<#args_ty>(__text)
            }

            fn call_typed(
                &self,
                __cx: ::tooltable::Cx<#state>,
                __typed: ::tooltable::__private::TypedArguments,
                __written: bool,
            ) -> ::core::result::Result<
                ::tooltable::__private::BoxFuture<'static, ::tooltable::__private::RenderedOutcome>,
                ::tooltable::Cx<#state>,
            > {
                match ::tooltable::__private::typed::<#args_ty>(__typed) {
                    ::core::option::Option::Some(#args_binding) => {
                        ::core::result::Result::Ok(::std::boxed::Box::pin(async move { #into_rendered }))
                    }
                    ::core::option::Option::None => ::core::result::Result::Err(__cx),
                }
            }
        },
    };

    quote! {
        #[allow(non_camel_case_types)]
        #(#docs)*
        #vis struct #ident {}

        #[allow(non_upper_case_globals)]
        #(#docs)*
        #const_item

        impl #ident {
            /// The function as written, callable directly (e.g. from unit tests).
            // An unused tool is already reported once, on its const.
            #[allow(dead_code)]
            #(#attrs)*
            #vis #run_sig #block
        }

        #field_checks

        impl #impl_generics ::tooltable::tool::Tool<#state> for #ident {
            fn meta(&self) -> ::tooltable::__private::ToolMeta {
                ::tooltable::__private::ToolMeta {
                    name: #name,
                    title: #title,
                    description: #description,
                    annotations: ::tooltable::tool::Annotations {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    rest: #rest,
                    allow_unknown_args: #allow_unknown_args,
                    task_support: #task_support,
                    deferred_task: #deferred_task,
                    limits: ::tooltable::tool::CallLimits {
                        timeout_ms: #timeout_ms,
                        max_concurrent: #max_concurrent,
                    },
                    scopes: &[#(#scopes),*],
                    input_schema: #input_schema,
                    output_schema: #output_schema,
                    error_schema: #error_schema,
                }
            }

            fn call(
                &self,
                #cx_param: ::tooltable::Cx<#state>,
                __json: ::tooltable::__private::Value,
            ) -> ::tooltable::__private::BoxFuture<'static, ::tooltable::__private::Outcome> {
                ::std::boxed::Box::pin(async move {
                    let #args_binding: #args_ty = match ::tooltable::__private::parse_args(__json) {
                        ::core::result::Result::Ok(__parsed) => __parsed,
                        ::core::result::Result::Err(__outcome) => return __outcome,
                    };
                    ::tooltable::__private::into_outcome(#into_result)
                })
            }

            #read_text
        }
    }
}

/// `Some(lit)` or `None`, written out in full.
fn option(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}
