#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen-android-rules.py: writes rules/android.rules from the table of known Android library
# leaks and ignored references (docs/research/android-known-library-leaks.tsv in the shared
# reference folder), followed by the Android object inspectors the rules language can express.
# Usage: scripts/gen-android-rules.py TSV > rules/android.rules
# Each TSV row becomes one rule; rows Shark defines but never registers ("inactive") are kept
# as comments so the file documents them. Conditions are translated to the rules language:
# "API in 19..28" -> "API >= 19 && API <= 28", "manufacturer=samsung" -> 'manufacturer ==
# "samsung"', "Build.ID=X" -> 'build_id == "X"', AND/OR -> &&/||.
import re
import sys


def cond(text):
    t = text.strip()
    if t == "always":
        return None
    t = re.sub(r"API in (\d+)\.\.(\d+)", r"(API >= \1 && API <= \2)", t)

    def manu_set(m):
        names = [n.strip() for n in m.group(1).split(",")]
        return "(" + " || ".join('manufacturer == "%s"' % n for n in names) + ")"

    t = re.sub(r"manufacturer in \{([^}]*)\}", manu_set, t)
    t = re.sub(r"manufacturer=([^\s)]+)", r'manufacturer == "\1"', t)
    t = re.sub(r"Build\.ID=([^\s)]+)", r'build_id == "\1"', t)
    t = re.sub(r"\bAND\b", "&&", t)
    t = re.sub(r"\bOR\b", "||", t)
    return t


def ref(kind, cls, field):
    if kind == "instance_field":
        return "instance %s#%s" % (cls, field)
    if kind == "static_field":
        return "static %s#%s" % (cls, field)
    if kind == "native_global":
        return "native-global %s" % cls
    if kind == "java_local":
        name = field.split("=", 1)[1] if field.startswith("thread=") else field
        return 'java-local "%s"' % name
    raise SystemExit("unknown kind %r" % kind)


INSPECTORS = r'''
# ---- Android object inspectors (Shark's AndroidObjectInspectors, as far as the rules
# language expresses them).
inspect android.app.Activity if mDestroyed == true -> leaking "Activity#mDestroyed is true"
inspect android.app.Activity if mDestroyed == false -> not-leaking "Activity#mDestroyed is false"
# SERVICE: a running Service is a value of ActivityThread.mServices (an ArrayMap)
inspect android.app.Service if this not in static android.app.ActivityThread#sCurrentActivityThread.mServices -> leaking "Service not held by ActivityThread"
inspect android.app.Service if this in static android.app.ActivityThread#sCurrentActivityThread.mServices -> not-leaking "Service held by ActivityThread"
# CONTEXT_FIELD: one label per instance field holding a Context, naming what it wraps
inspect * fields android.content.Context if @component is null -> label "{@field} instance of {@class}"
inspect * fields android.content.Context if @component == this && !(this instanceof android.app.Activity) -> label "{@field} instance of {@class}"
inspect * fields android.content.Context if @component == this && this instanceof android.app.Activity && (Activity#mDestroyed == true || Activity#mDestroyed == false) -> label "{@field} instance of {@class} with mDestroyed = {Activity#mDestroyed}"
inspect * fields android.content.Context if @component == this && this instanceof android.app.Activity && !(Activity#mDestroyed == true || Activity#mDestroyed == false) -> label "{@field} instance of {@class} with mDestroyed = UNKNOWN"
inspect * fields android.content.Context if @component != this && @component instanceof android.app.Activity && (@component.Activity#mDestroyed == true || @component.Activity#mDestroyed == false) -> label "{@field} instance of {@class}, wrapping activity {@component.@class} with mDestroyed = {@component.Activity#mDestroyed}"
inspect * fields android.content.Context if @component != this && @component instanceof android.app.Activity && !(@component.Activity#mDestroyed == true || @component.Activity#mDestroyed == false) -> label "{@field} instance of {@class}, wrapping activity {@component.@class} with mDestroyed = UNKNOWN"
inspect * fields android.content.Context if @component is not null && @component != this && !(@component instanceof android.app.Activity) -> label "{@field} instance of {@class}, wrapping {@component.@class}"
inspect android.app.Application -> not-leaking "Application is a singleton"
inspect android.app.ActivityThread -> not-leaking "ActivityThread is a singleton"
inspect android.view.inputmethod.InputMethodManager -> not-leaking "InputMethodManager is a singleton"
inspect java.lang.Thread if name == "main" -> not-leaking "the main thread always runs"
inspect android.app.ContextImpl if mOuterContext instanceof android.app.Activity && mOuterContext.Activity#mDestroyed == true -> leaking "ContextImpl.mOuterContext is an instance of android.app.Activity with Activity.mDestroyed true"
inspect android.app.ContextImpl if mOuterContext instanceof android.app.Activity && mOuterContext.Activity#mDestroyed == false -> not-leaking "ContextImpl.mOuterContext is an instance of android.app.Activity with Activity.mDestroyed false"
inspect android.app.ContextImpl if mOuterContext instanceof android.app.Application -> not-leaking "ContextImpl.mOuterContext is an instance of android.app.Application"
inspect android.content.ContextWrapper if !(this instanceof android.app.Activity) && !(this instanceof android.app.Application) && !(this instanceof android.app.Service) && mBase instanceof android.app.Activity && mBase.Activity#mDestroyed == true -> leaking "{@simple} wraps an Activity with Activity.mDestroyed true"
inspect android.content.ContextWrapper if !(this instanceof android.app.Activity) && !(this instanceof android.app.Application) && !(this instanceof android.app.Service) && mBase instanceof android.app.Activity && mBase.Activity#mDestroyed == false -> label "{@simple} wraps an Activity with Activity.mDestroyed false"
inspect android.app.ApplicationPackageManager if mContext.mOuterContext instanceof android.app.Activity && mContext.mOuterContext.Activity#mDestroyed == true -> leaking "ApplicationPackageManager.mContext.mOuterContext is an instance of android.app.Activity with Activity.mDestroyed true"
# VIEW: any View of a destroyed activity reads Leaking: YES, but only the root of its
# hierarchy (no parent, or a ViewRootImpl for one) is a leaking object, so a hierarchy is one
# leak whose trace runs on to the activity, as Shark's leaking-object filter has it
inspect android.view.View if mContext instanceof android.app.Activity && mContext.Activity#mDestroyed == true -> leaking "View.mContext references a destroyed activity" find-if mParent is null || !(mParent instanceof android.view.View)
inspect android.view.View if mParent is null -> label "View not part of a window view hierarchy"
inspect android.view.View if mAttachInfo is not null && !(mContext instanceof android.app.Activity && mContext.Activity#mDestroyed == true) -> not-leaking "View.mAttachInfo is not null (view attached)"
inspect android.view.View if mAttachInfo is null -> label "View.mAttachInfo is null (view detached)"
inspect android.view.View -> label "View.mWindowAttachCount = {mWindowAttachCount}"
inspect android.widget.Editor if mTextView.mContext instanceof android.app.Activity && mTextView.mContext.Activity#mDestroyed == true -> leaking "Editor.mTextView.mContext references a destroyed activity"
inspect android.app.Dialog if mDecor is null -> label "mDecor is null"
inspect android.app.Dialog if mDecor is not null -> label "mDecor is not null"
inspect android.app.Fragment if mFragmentManager is null -> leaking "Fragment.mFragmentManager is null"
inspect android.app.Fragment if mFragmentManager is not null -> not-leaking "Fragment.mFragmentManager is not null"
inspect android.app.Fragment -> label "Fragment.mTag={mTag}"
inspect android.support.v4.app.Fragment if mFragmentManager is null -> leaking "Fragment.mFragmentManager is null"
inspect android.support.v4.app.Fragment if mFragmentManager is not null -> not-leaking "Fragment.mFragmentManager is not null"
inspect android.support.v4.app.Fragment -> label "Fragment.mTag={mTag}"
inspect androidx.fragment.app.Fragment if mLifecycleRegistry.mState == "DESTROYED" -> leaking "Fragment is in state DESTROYED"
inspect androidx.fragment.app.Fragment if mLifecycleRegistry.mState is not null && mLifecycleRegistry.mState != "DESTROYED" && mLifecycleRegistry.mState != "INITIALIZED" -> not-leaking "Fragment is in state {mLifecycleRegistry.mState}"
inspect androidx.fragment.app.Fragment -> label "Fragment.mTag={mTag}"
inspect android.os.MessageQueue if mQuitting == true -> leaking "MessageQueue#mQuitting is true"
inspect android.os.MessageQueue if mQuitting == false -> not-leaking "MessageQueue#mQuitting is false"
inspect android.os.MessageQueue if mQuiting == true -> leaking "MessageQueue#mQuiting is true"
inspect android.os.MessageQueue if mQuiting == false -> not-leaking "MessageQueue#mQuiting is false"
inspect android.os.MessageQueue -> label "HandlerThread: \"{mMessages.target.mLooper.mThread.name}\""
inspect mortar.Presenter if view is null -> label "Presenter.view is null"
inspect mortar.MortarScope if dead == true -> leaking "mortar.MortarScope.dead is true for scope {name}"
inspect mortar.MortarScope if dead == false -> not-leaking "mortar.MortarScope.dead is false for scope {name}"
inspect com.squareup.coordinators.Coordinator if attached == true -> not-leaking "Coordinator.attached is true"
inspect com.squareup.coordinators.Coordinator if attached == false -> leaking "Coordinator.attached is false"
inspect android.view.ViewRootImpl if mView is null -> leaking "ViewRootImpl.mView is null"
inspect android.view.ViewRootImpl if mContext instanceof android.app.Activity && mContext.Activity#mDestroyed == true -> leaking "ViewRootImpl.mContext references a destroyed activity"
inspect android.view.ViewRootImpl -> label "mWindowAttributes.mTitle = \"{mWindowAttributes.mTitle}\""
inspect android.view.ViewRootImpl if mWindowAttributes.type == 2005 -> label "mWindowAttributes.type = 2005 (Toast)"
inspect android.view.Window if mDestroyed == true -> leaking "Window#mDestroyed is true"
inspect android.view.Window if mDestroyed == false -> label "Window#mDestroyed is false"
inspect android.os.Message -> label "Message.what = {what}"
inspect android.os.Message -> label "Message.when = {when}"
inspect android.os.Message -> label "Message.obj = {obj}"
inspect android.os.Message -> label "Message.callback = {callback}"
inspect android.os.Message -> label "Message.target = {target}"
inspect android.widget.Toast if mTN.mWM is not null && mTN.mView is null -> leaking "This toast is done showing (Toast.mTN.mWM != null && Toast.mTN.mView == null)"
inspect android.widget.Toast if mTN.mWM is not null && mTN.mView is not null -> not-leaking "This toast is showing (Toast.mTN.mWM != null && Toast.mTN.mView != null)"
inspect androidx.compose.runtime.Recomposer if _state._state == "ShutDown" || _state._state == "ShuttingDown" -> leaking "Recomposer is in state {_state._state}"
inspect androidx.compose.runtime.Recomposer if _state._state == "PendingWork" || _state._state == "Idle" || _state._state == "Inactive" || _state._state == "InactivePendingWork" -> not-leaking "Recomposer is in state {_state._state}"
inspect androidx.compose.runtime.CompositionImpl if disposed == true -> leaking "Composition disposed"
inspect androidx.compose.runtime.CompositionImpl if disposed == false -> not-leaking "Composition not disposed"
inspect androidx.compose.runtime.CompositionImpl if state == 3 -> leaking "Composition disposed"
inspect androidx.compose.runtime.CompositionImpl if state == 0 -> not-leaking "Composition running"
inspect androidx.lifecycle.LifecycleRegistry if mState is not null && mState != "DESTROYED" -> not-leaking "state is {mState}"
inspect androidx.lifecycle.LifecycleRegistry if mState == "DESTROYED" -> label "state = DESTROYED"
inspect android.os.Binder -> label "A Binder instance is kept alive by the native side as long as a remote process holds a reference to it"
'''


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: gen-android-rules.py TSV")
    rows = []
    with open(sys.argv[1], encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (len(header) - len(cols))
            rows.append(dict(zip(header, cols)))
    out = sys.stdout
    out.write("# android.rules: known Android library leaks, ignored references and Android\n")
    out.write("# object inspectors (loaded when the dump has android.os.Build). GENERATED by\n")
    out.write("# scripts/gen-android-rules.py from android-known-library-leaks.tsv (%d rows);\n"
              % len(rows))
    out.write("# edit the script, not this file. Grammar: docs/rules.md.\n")
    for section, matcher in (("library leaks", "library_leak"), ("ignored references", "ignored")):
        out.write("\n# ---- %s\n" % section)
        for r in rows:
            if r["matcher"] != matcher:
                continue
            c = cond(r["conditions"])
            line = ("library-leak " if matcher == "library_leak" else "ignore ")
            line += ref(r["kind"], r["class"], r["field"])
            if c:
                line += " when " + c
            if matcher == "library_leak":
                links = " ".join(r["reference_links"].replace(",", " ").split())
                desc = "Known Android leak %s (%s)." % (r["entry"], r["conditions"])
                if links:
                    desc += " See " + links
                line += ' description "%s"' % desc.replace("\\", "\\\\").replace('"', "'")
            if r["status"] != "active":
                out.write("# %s in Shark: %s\n" % (r["status"], r["entry"]))
                line = "# " + line
            else:
                out.write("# %s\n" % r["entry"])
            out.write(line + "\n")
    out.write(INSPECTORS)


if __name__ == "__main__":
    main()
